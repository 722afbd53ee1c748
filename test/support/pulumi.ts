import * as pulumi from '@pulumi/pulumi';

/** One resource registration, as the Pulumi engine would receive it. */
export interface Registration {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly parent: string;
  readonly dependencies: string[];
  readonly custom: boolean;
  readonly inputs: any;
}

/**
 * Runs the Pulumi program under mocks (no CLI, no cluster) and records every
 * registration with its parent and dependencies, read from the requests
 * themselves.
 */
export class PulumiRecorder {
  public readonly registrations: Registration[] = [];
  /** URNs of components that called `registerOutputs`. */
  public readonly outputsRegistered = new Set<string>();

  public async install(): Promise<void> {
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: args.custom ? `${args.name}-id` : undefined, state: args.inputs }),
        call: (args) => args.inputs,
      },
      'dynamo-test',
      'test',
      false,
    );
    const monitor = pulumi.runtime.getMonitor() as any;
    const register = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req: any, callback: (err: any, res: any) => void) =>
      register(req, (err: any, res: any) => {
        if (!err) {
          this.registrations.push({
            type: req.getType(),
            name: req.getName(),
            urn: res.getUrn(),
            parent: req.getParent(),
            dependencies: req.getDependenciesList(),
            custom: req.getCustom(),
            inputs: pulumi.runtime.deserializeProperties(req.getObject()),
          });
        }
        callback(err, res);
      });
    const registerOutputs = monitor.registerResourceOutputs.bind(monitor);
    monitor.registerResourceOutputs = (req: any, callback: (err: any, res: any) => void) => {
      this.outputsRegistered.add(req.getUrn());
      return registerOutputs(req, callback);
    };
  }

  /** Waits until registrations stop arriving. */
  public async settle(): Promise<void> {
    let seen = -1;
    while (seen !== this.registrations.length) {
      seen = this.registrations.length;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  public clear(): void {
    this.registrations.length = 0;
    this.outputsRegistered.clear();
  }

  /** The Kubernetes objects registered, as plain objects. */
  public kubeObjects(): any[] {
    return this.registrations.filter((r) => r.custom && r.type.startsWith('kubernetes:')).map((r) => stripUndefined(r.inputs));
  }

  public byName(name: string): Registration {
    const found = this.registrations.filter((r) => r.name === name);
    if (found.length !== 1) throw new Error(`expected one registration named ${name}, found ${found.length}`);
    return found[0];
  }
}

function stripUndefined(value: any): any {
  if (Array.isArray(value)) return value.map(stripUndefined);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, stripUndefined(v)]));
  }
  return value;
}
