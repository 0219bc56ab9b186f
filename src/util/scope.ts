import { hash } from 'node:crypto';

// Tenant scopes. Every state entry (stored response, item, call id, ledger entry, task) belongs
// to the gateway key that created it, and is found only through that key: another key gets the
// same 404 / 400 as for an id that never existed. With no gateway keys configured there is one
// anonymous scope, ''.
//
// The scope id is a digest of the key's configured name: stable across restarts and instances
// (Redis), fixed length and charset (safe inside map and Redis keys), and never the key itself.

export const ANONYMOUS_SCOPE = '';

// Key names come from config (a handful), and several steps of one request ask for the same
// scope: the digests are remembered, in a map that is emptied if it ever outgrows its cap.
const MAX_REMEMBERED_SCOPES = 64;
const remembered = new Map<string, string>();

/** The scope of a request authenticated by the gateway key named `keyName` (undefined: anonymous). */
export function scopeOf(keyName: string | undefined): string {
  if (keyName === undefined) return ANONYMOUS_SCOPE;
  let scope = remembered.get(keyName);
  if (scope === undefined) {
    scope = hash('sha256', `toolgate-scope\u0000${keyName}`, 'hex').slice(0, 24);
    if (remembered.size >= MAX_REMEMBERED_SCOPES) remembered.clear();
    remembered.set(keyName, scope);
  }
  return scope;
}

/** A map key inside one scope; scope ids never contain the separator, so keys cannot collide. */
export function scopedKey(scope: string, id: string): string {
  return `${scope}\u0000${id}`;
}

/**
 * The Redis key prefix of a scope: the anonymous scope keeps the layout of earlier versions
 * (`<prefix>resp:<id>`), a key's scope adds `t:<scope id>:` (`<prefix>t:<scope>:resp:<id>`).
 * No anonymous key starts with `t:`, so the two never overlap.
 */
export function redisScopePrefix(prefix: string, scope: string): string {
  return scope === ANONYMOUS_SCOPE ? prefix : `${prefix}t:${scope}:`;
}
