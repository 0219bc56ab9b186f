import { createRequire } from 'node:module';
import type { Pool as UndiciPool, errors as UndiciErrors } from 'undici';

// Only the parts of undici the gateway runs: its Pool, its header parser and its error classes (answers
// are read by the gateway's own dispatcher handlers, answer-text.ts and answer-stream.ts, not undici's request API).
// `import … from 'undici'` loads the whole package (fetch, WebSocket, caches, mock agents: ~130
// files), ~3 MB of heap and 3–10 MB of RSS in an idle gateway for code it never calls. undici 7 has
// no "exports" map, so its files are reachable by path; test/providers/undici-parts.test.ts holds them
// to be the package's own exports, so an upgrade that moves them fails there, not in production.
const require = createRequire(import.meta.url);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;
export const undiciErrors = require('undici/lib/core/errors.js') as typeof UndiciErrors;
/** The package's `util.parseHeaders`: raw header pairs to undici's headers object. */
export const parseHeaders = (require('undici/lib/core/util.js') as { parseHeaders: (headers: Buffer[]) => Record<string, string | string[]> }).parseHeaders;

