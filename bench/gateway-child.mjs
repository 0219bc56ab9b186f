/* global process, URL */
// toolgate in its own process, so its RSS and CPU profile are its own. Plain JavaScript on
// purpose: a TypeScript child would need the tsx loader, whose module-hooks thread alone adds
// tens of MB of RSS to the process being measured. Runs the built gateway (dist/, what
// `npm start` runs) by default; with `src` (the bench's --src) it is started with --import tsx
// and loads the TypeScript sources.
//
// Usage (child of bench/run.ts): node bench/gateway-child.mjs <config.yaml> <dist|src> [project root]
// The optional root (default: this checkout) lets bench/ab.ts run two builds side by side.

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { childReady } from './child-ready.mjs';

const [configPath, impl = 'dist', root] = process.argv.slice(2);
if (!configPath) throw new Error('usage: gateway-child.mjs <config.yaml> <dist|src> [project root]');

const rootUrl = root ? pathToFileURL(root.endsWith('/') ? root : `${root}/`) : new URL('../', import.meta.url);
const base = new URL(impl === 'src' ? 'src/' : 'dist/', rootUrl);
const load = (name) => import(new URL(`${name}.js`, base).href);
const { buildApp } = await load('app');
const { parseConfig } = await load('config/load');
const { createLogger } = await load('logging');

// A config this build rejects (e.g. a key a feature branch adds that has not landed) is reported
// to the bench over IPC, which then skips that row with the message instead of failing the run.
let app;
try {
  const loaded = parseConfig(readFileSync(configPath, 'utf8'), process.env, configPath);
  const logger = createLogger({ level: loaded.config.logging.level, secrets: loaded.secrets });
  ({ app } = await buildApp(loaded, { logger }));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const report = { type: 'startup-error', message: message.split('\n').slice(0, 3).join(' ').slice(0, 300) };
  if (process.send) process.send(report, () => process.exit(2));
  else process.exit(2);
  await new Promise(() => undefined);
}
const url = await app.listen({ host: '127.0.0.1', port: 0 });

childReady(url, { impl }, async () => {
  await app.close();
});
