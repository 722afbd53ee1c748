import {
  aggregatedGraphSpec,
  AggregatedDeploymentOptions,
  disaggregatedGraphSpec,
  DisaggregatedDeploymentOptions,
  DynamoValidationError,
  renderGraph,
  RenderedGraph,
} from '../../src';

/**
 * The release these unit tests read manifests of unless they name one: the guides'
 * (their v1alpha1 layout is what `services`, `container` and `envOf` read). The 1.x
 * layout has its own tests (v1beta1.test.ts).
 */
export const GUIDE_VERSION = '0.9.0';

export function renderDisagg(o: DisaggregatedDeploymentOptions, name = 'g', namespace = 'ns'): RenderedGraph {
  return renderGraph(disaggregatedGraphSpec(name, namespace, { dynamoVersion: GUIDE_VERSION, ...o }));
}

export function renderAgg(o: AggregatedDeploymentOptions, name = 'g', namespace = 'ns'): RenderedGraph {
  return renderGraph(aggregatedGraphSpec(name, namespace, { dynamoVersion: GUIDE_VERSION, ...o }));
}

export function services(r: RenderedGraph): Record<string, any> {
  return (r.graph as any).spec.services;
}

export function container(r: RenderedGraph, service: string): any {
  return services(r)[service].extraPodSpec.mainContainer;
}

export function envOf(r: RenderedGraph, service: string): Record<string, unknown> {
  return Object.fromEntries((services(r)[service].envs ?? []).map((e: any) => [e.name, e.value ?? e.valueFrom]));
}

/** Runs `fn`, expects a DynamoValidationError, and returns its issues as `path: message` lines. */
export function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DynamoValidationError)) throw e;
    return e.issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected a DynamoValidationError, but nothing was thrown');
}

/** The value following `flag` in an argument list. */
export function flagValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i < 0 ? undefined : args[i + 1];
}
