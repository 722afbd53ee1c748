import { checkDnsSubdomain } from '../base/checks';
import { Diagnostics } from '../base/errors';
import { prune } from '../base/util';

/**
 * An existing Secret, referenced by name. The library never puts a token in
 * a manifest: create the Secret out of band (`kubectl create secret`, an
 * external-secrets operator, or, with Pulumi, from a secret config value).
 */
export abstract class SecretRef {
  protected constructor(
    /** The Secret's name. */
    public readonly name: string,
  ) {
    const d = new Diagnostics();
    checkDnsSubdomain(d, 'name', name);
    d.throwIfErrors();
  }
}

/**
 * A `kubernetes.io/dockerconfigjson` Secret for pulling images, e.g. from
 * nvcr.io (guide 1 step 6: `nvcr-imagepullsecret`).
 */
export class ImagePullSecret extends SecretRef {
  /** References an existing pull Secret. */
  public static fromName(name: string): ImagePullSecret {
    return new ImagePullSecret(name);
  }

  private constructor(name: string) {
    super(name);
  }
}

/**
 * A Secret holding `HF_TOKEN` for gated models (guide 1 step 6: `hf-token-secret`), given
 * where the release's own manifests give it: on 1.x (1.6.1 included) to the frontend and the
 * workers as `envFrom` of their `main` container; on 0.8/0.9 to the workers as `envFromSecret`.
 */
export class HfTokenSecret extends SecretRef {
  /** The key the frontend and workers read the token from. */
  public static readonly TOKEN_KEY = 'HF_TOKEN';

  /** References an existing Secret with an `HF_TOKEN` key. */
  public static fromName(name: string): HfTokenSecret {
    return new HfTokenSecret(name);
  }

  private constructor(name: string) {
    super(name);
  }
}

/** NGC's registry and the user its API keys log in as. */
export const NGC_REGISTRY = 'nvcr.io';
export const NGC_USERNAME = '$oauthtoken';

/**
 * The Secret an engine that creates Secrets (Pulumi, from a secret config
 * value) writes for `HfTokenSecret`. `token` is whatever that engine uses to
 * keep the value secret; it never comes from a manifest.
 */
export function hfTokenSecretObject<T>(name: string, namespace: string | undefined, token: T) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: prune({ name, namespace }),
    type: 'Opaque',
    stringData: { [HfTokenSecret.TOKEN_KEY]: token },
  };
}

/** The `.dockerconfigjson` of a registry login. */
export function dockerConfigJson(server: string, username: string, password: string): string {
  return JSON.stringify({ auths: { [server]: { username, password, auth: Buffer.from(`${username}:${password}`).toString('base64') } } });
}

/** The Secret an engine that creates Secrets writes for `ImagePullSecret`; `config` holds `dockerConfigJson(...)`. */
export function imagePullSecretObject<T>(name: string, namespace: string | undefined, config: T) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: prune({ name, namespace }),
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': config },
  };
}
