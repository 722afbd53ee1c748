import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import {
  checkDnsSubdomain,
  Diagnostics,
  dockerConfigJson,
  HfTokenSecret as HfTokenSecretRef,
  hfTokenSecretObject,
  ImagePullSecret as ImagePullSecretRef,
  imagePullSecretObject,
  NGC_REGISTRY,
  NGC_USERNAME,
  show,
} from '../core/internal';
import { childOptions, typeToken } from './common';

/** A secret value: a Pulumi secret Output (`config.requireSecret(...)`, `pulumi.secret(...)`). */
export type SecretValue = pulumi.Output<string>;

function checkSecretValue(d: Diagnostics, path: string, value: unknown): void {
  if (!pulumi.Output.isInstance(value)) {
    d.error(
      path,
      `must be a Pulumi secret Output (config.requireSecret("...") or pulumi.secret(...)), got ${typeof value === 'string' ? 'a literal string' : show(value)}; a token is never written in a program or a manifest`,
      'literal-secret',
    );
  }
}

export interface SecretArgs {
  /**
   * Name of the Secret.
   * @default - the component name
   */
  readonly name?: string;
  /**
   * Namespace of the Secret (the workloads' namespace).
   * @default - the provider's namespace
   */
  readonly namespace?: string;
}

export interface HfTokenSecretArgs extends SecretArgs {
  /** The Hugging Face token, as a secret Output. */
  readonly token: SecretValue;
}

/**
 * A Secret holding `HF_TOKEN`, created from a secret Output so the token is
 * encrypted in Pulumi's state; give it to a graph as `hfTokenSecret`.
 * `HfTokenSecret.fromName(name)` references an existing one instead.
 */
export class HfTokenSecret extends pulumi.ComponentResource {
  /** References an existing Secret with an `HF_TOKEN` key; creates nothing. */
  public static fromName(name: string): HfTokenSecretRef {
    return HfTokenSecretRef.fromName(name);
  }

  /** The Secret's name. */
  public readonly name: string;
  /** The Secret; graphs that use it wait for it. */
  public readonly resource: k8s.core.v1.Secret;

  constructor(name: string, args: HfTokenSecretArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('HfTokenSecret'), name, {}, opts);
    this.name = args?.name ?? name;
    const d = new Diagnostics();
    checkDnsSubdomain(d, 'name', this.name);
    checkSecretValue(d, 'token', args?.token);
    d.throwIfErrors();
    const { metadata, type, stringData } = hfTokenSecretObject(this.name, args.namespace, pulumi.secret(args.token));
    this.resource = new k8s.core.v1.Secret(name, { metadata, type, stringData }, childOptions(this, opts));
    this.registerOutputs({ name: this.name });
  }
}

export interface ImagePullSecretArgs extends SecretArgs {
  /**
   * Registry server.
   * @default 'nvcr.io'
   */
  readonly server?: string;
  /**
   * Registry user.
   * @default '$oauthtoken' (NGC)
   */
  readonly username?: string;
  /** The registry password (the NGC API key), as a secret Output. */
  readonly password: SecretValue;
}

/**
 * A `kubernetes.io/dockerconfigjson` Secret created from a secret Output;
 * `ImagePullSecret.fromName(name)` references an existing one instead.
 */
export class ImagePullSecret extends pulumi.ComponentResource {
  /** References an existing pull Secret; creates nothing. */
  public static fromName(name: string): ImagePullSecretRef {
    return ImagePullSecretRef.fromName(name);
  }

  public readonly name: string;
  public readonly resource: k8s.core.v1.Secret;

  constructor(name: string, args: ImagePullSecretArgs, opts?: pulumi.ComponentResourceOptions) {
    super(typeToken('ImagePullSecret'), name, {}, opts);
    this.name = args?.name ?? name;
    const d = new Diagnostics();
    checkDnsSubdomain(d, 'name', this.name);
    checkSecretValue(d, 'password', args?.password);
    d.throwIfErrors();
    const server = args.server ?? NGC_REGISTRY;
    const username = args.username ?? NGC_USERNAME;
    const config = pulumi.secret(args.password).apply((password) => dockerConfigJson(server, username, password));
    const { metadata, type, stringData } = imagePullSecretObject(this.name, args.namespace, config);
    this.resource = new k8s.core.v1.Secret(name, { metadata, type, stringData }, childOptions(this, opts));
    this.registerOutputs({ name: this.name });
  }
}
