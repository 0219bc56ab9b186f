/* global process, setTimeout, console, Headers */
// A peer gateway in its own process: Portkey's open-source gateway, from the npm package installed
// on demand by bench/peers.ts (never a dependency of toolgate). Started as its own `start-server.js`
// starts (Hono on @hono/node-server), on a free port, headless; announces {type:'ready', url} over IPC.
// --fetch-shim: Portkey 1.15.2 on Node answers every streamed chat completion with a 500 ("TypeError:
// immutable" in ResponseService.updateHeaders: it appends headers to a Response built on fetch's
// immutable upstream headers; Portkey-AI/gateway issues 1389 and 1550, fix proposed in PR 1390).
// The shim re-wraps each upstream fetch response with mutable headers, the effect of that fix, so
// Portkey's streaming path can be measured at all. It costs one Response object per upstream call.
// Usage (child of bench/run.ts): node bench/portkey-child.mjs <path to build/start-server.js> [--fetch-shim]

import { get } from 'node:http';
import { freePort } from './child-ready.mjs';
import { pathToFileURL } from 'node:url';

const [entry, ...flags] = process.argv.slice(2);
if (!entry) throw new Error('usage: portkey-child.mjs <start-server.js> [--fetch-shim]');

if (flags.includes('--fetch-shim')) {
  const nativeFetch = globalThis.fetch;
  const NativeResponse = globalThis.Response;
  globalThis.fetch = async (...args) => {
    const response = await nativeFetch(...args);
    return new NativeResponse(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
  };
}

// Its errors are counted (the bench reports errors from the client side); the first few are shown.
let errorsShown = 0;
console.error = (...args) => {
  if (errorsShown++ < 3) process.stderr.write(`[portkey] ${args.map(String).join(' ').slice(0, 300)}\n`);
};
console.log = () => undefined;
console.clear = () => undefined;

const port = await freePort();

process.argv = [process.argv[0], entry, `--port=${port}`, '--headless'];
await import(pathToFileURL(entry).href);

const url = `http://127.0.0.1:${port}`;
let ready = false;
for (let attempt = 0; attempt < 300 && !ready; attempt++) {
  ready = await new Promise((resolve) => {
    get(url, (response) => {
      response.resume();
      response.on('end', () => resolve(true));
    }).on('error', () => resolve(false));
  });
  if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
}
if (!ready) {
  process.send?.({ type: 'startup-error', message: `no answer on ${url} within 30 s` });
  process.exit(1);
}
process.on('message', (message) => {
  const type = message && typeof message === 'object' ? message.type : undefined;
  if (type === 'stop') process.exit(0);
  if (type === 'stats') process.send?.({ type: 'stats', loggedErrors: errorsShown });
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready', url, fetchShim: flags.includes('--fetch-shim') });
