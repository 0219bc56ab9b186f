import { createRequire } from 'node:module';
import type { Pool as UndiciPool, errors as UndiciErrors } from 'undici';

// Only the parts of undici the gateway runs: its Pool and its error classes. `import … from 'undici'`
// loads the whole package (fetch, WebSocket, caches, mock agents: ~130 files), ~3 MB of heap and
// 3–10 MB of RSS in an idle gateway for code it never calls. undici 7 has no "exports" map, so its
// files are reachable by path; test/providers/undici-parts.test.ts holds them to be the package's
// own exports, so an upgrade that moves them fails there, not in production.
const require = createRequire(import.meta.url);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export const undiciErrors = require('undici/lib/core/errors.js') as typeof UndiciErrors;
export type Pool = UndiciPool;
