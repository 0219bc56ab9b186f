import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthConfig, GatewayKeyConfig } from '../config/schema.js';
import type { ResolvedModel } from '../routing/router.js';
import { modelMatcher, type ModelMatcher } from './glob.js';

// Gateway keys are kept only as SHA-256 digests. A presented key is hashed and compared with
// every digest in constant time (no early exit), so timing says nothing about which bytes or
// which key matched.

export interface GatewayKey {
  name: string;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  dailyBudgetUsd?: number;
  /** Whether this key may use a resolved model (see `namesOf`). */
  allows(model: ResolvedModel): boolean;
}

interface StoredKey extends GatewayKey {
  digest: Buffer;
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * The names a key's globs are matched against: the name the client sent, and the
 * `<provider>/<upstream id>` it resolves to. So `openai/*` also admits the friendly name
 * `gpt-4o-mini` when that is configured on provider openai, and a glob naming a friendly name
 * admits exactly that name.
 */
export function namesOf(model: ResolvedModel): string[] {
  const canonical = `${model.provider.settings.name}/${model.upstreamModel}`;
  return canonical === model.requested ? [canonical] : [model.requested, canonical];
}

export class KeyRing {
  private readonly keys: StoredKey[];
  private readonly metricsDigest: Buffer | undefined;

  constructor(config: Pick<AuthConfig, 'keys' | 'metricsKey'>) {
    this.keys = config.keys.map((entry) => toStored(entry));
    this.metricsDigest = config.metricsKey ? digest(config.metricsKey) : undefined;
  }

  /** Any key configured: every /v1 request must present one. */
  get enabled(): boolean {
    return this.keys.length > 0;
  }

  get metricsProtected(): boolean {
    return this.metricsDigest !== undefined;
  }

  get names(): string[] {
    return this.keys.map((key) => key.name);
  }

  byName(name: string): GatewayKey | undefined {
    return this.keys.find((key) => key.name === name);
  }

  /** The key an Authorization header carries, or undefined. */
  authenticate(header: string | undefined): GatewayKey | undefined {
    const token = bearerToken(header);
    const presented = digest(token ?? '');
    let found: StoredKey | undefined;
    for (const key of this.keys) {
      // Every digest is compared; the result is only picked, never short-circuited.
      if (timingSafeEqual(presented, key.digest) && found === undefined) found = key;
    }
    return token === undefined ? undefined : found;
  }

  metricsAllowed(header: string | undefined): boolean {
    if (!this.metricsDigest) return true;
    const token = bearerToken(header);
    return token !== undefined && timingSafeEqual(digest(token), this.metricsDigest);
  }
}

function toStored(entry: GatewayKeyConfig): StoredKey {
  const matches: ModelMatcher = modelMatcher(entry.models);
  return {
    name: entry.name,
    requestsPerMinute: entry.requestsPerMinute,
    tokensPerMinute: entry.tokensPerMinute,
    dailyBudgetUsd: entry.dailyBudgetUsd,
    digest: digest(entry.key),
    allows: (model) => matches(namesOf(model)),
  };
}

function bearerToken(header: string | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}
