// npm runs this after `npm ci` / `npm install` ("prepare"). It builds tap's Test class for the plugin
// set in package.json ("tap.plugin") once, at install time. Left to the first `tap` run, that rebuild
// made the whole first `npm test` on a fresh clone ~100 s slower on 2 cores (339 s against 236 s).
// The spawned test processes were the slow part, not the build itself (~8 s).
// It does nothing where tap is not installed (npm ci --omit=dev).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const tap = fileURLToPath(new URL('../node_modules/.bin/tap', import.meta.url));
if (existsSync(tap)) execFileSync(tap, ['build'], { stdio: 'inherit' });
