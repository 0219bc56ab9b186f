import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool, errors as UndiciErrors } from 'undici';

// Only the parts of undici the gateway runs: its Pool, its request API and its error classes.
// `import … from 'undici'` loads the whole package (fetch, WebSocket, caches, mock agents: ~130
// files), ~3 MB of heap and 3–10 MB of RSS in an idle gateway for code it never calls. undici 7 has
// no "exports" map, so its files are reachable by path; test/providers/undici-parts.test.ts holds them
// to be the package's own exports, so an upgrade that moves them fails there, not in production.
// The package's index is also what adds `request` to every dispatcher's prototype; without it a
// pool is asked with the same function, called on the pool (`poolRequest`).
const require = createRequire(import.meta.url);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;
export const undiciErrors = require('undici/lib/core/errors.js') as typeof UndiciErrors;
/** The package's `util.parseHeaders`: raw header pairs to undici's headers object. */
export const parseHeaders = (require('undici/lib/core/util.js') as { parseHeaders: (headers: Buffer[]) => Record<string, string | string[]> }).parseHeaders;

const apiRequest = require('undici/lib/api/api-request.js') as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/** `pool.request(options)`, without relying on the package index having extended the prototype. */
export function poolRequest(pool: Pool, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(pool, options);
}

/** For the test that holds `poolRequest` to the package's own `Dispatcher.prototype.request`. */
export const requestFunction: unknown = apiRequest;
