import { checkDnsSubdomain } from './checks';
import { Diagnostics } from './errors';

/**
 * An existing Secret, referenced by name. The library never puts a token in
 * a manifest: create the Secret out of band (`kubectl create secret`, an
 * external-secrets operator, or, with Pulumi, from a secret config value).
 */
abstract class SecretRef {
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
 * A Secret holding `HF_TOKEN` for gated models (guide 1 step 6:
 * `hf-token-secret`), given to workers as `envFromSecret`.
 */
export class HfTokenSecret extends SecretRef {
  /** The key workers read the token from. */
  public static readonly TOKEN_KEY = 'HF_TOKEN';

  /** References an existing Secret with an `HF_TOKEN` key. */
  public static fromName(name: string): HfTokenSecret {
    return new HfTokenSecret(name);
  }

  private constructor(name: string) {
    super(name);
  }
}
