/* global process, URL */
// A toolgate build in its own process (as bench/gateway-child.mjs) that also answers the
// allocation questions of bench/stream-alloc.ts over IPC:
//   {type:'alloc-start', all}    V8's sampling heap profiler on (every 256 bytes); all: true counts
//                                every allocation, false only objects still alive when it stops
//   {type:'alloc-stop'}          (full GCs first when not `all`) the profile's self sizes by
//                                allocation site and heapUsed
//   {type:'gc-start'}, {type:'gc-stop'}  scavenges and major GCs in between, with their pauses
//   {type:'heap'}                heapUsed after full GCs
// (includeObjectsCollectedByMinorGC: false with ...MajorGC: true does not drop objects that died
// in allocation-triggered scavenges on Node 20: "survived a scavenge" cannot be read that way, so
// what lives long is counted as what open streams hold.)
// Needs --expose-gc. Usage: node --expose-gc bench/alloc-child.mjs <config.yaml> <project root>

import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { childReady } from './child-ready.mjs';

const [configPath, root] = process.argv.slice(2);
if (!configPath || !root) throw new Error('usage: alloc-child.mjs <config.yaml> <project root>');
const rootUrl = pathToFileURL(root.endsWith('/') ? root : `${root}/`);
const load = (name) => import(new URL(`dist/${name}.js`, rootUrl).href);
const { buildApp } = await load('app');
const { parseConfig } = await load('config/load');
const { createLogger } = await load('logging');
const loaded = parseConfig(readFileSync(configPath, 'utf8'), process.env, configPath);
const { app } = await buildApp(loaded, { logger: createLogger({ level: loaded.config.logging.level, secrets: loaded.secrets }) });
const url = await app.listen({ host: '127.0.0.1', port: 0 });

const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('alloc-child.mjs needs --expose-gc');
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');

let sampling = false;
let gcs = { scavenges: 0, scavengeMs: 0, majors: 0, majorMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = entry.detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      gcs.scavenges++;
      gcs.scavengeMs += entry.duration;
    } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      gcs.majors++;
      gcs.majorMs += entry.duration;
    }
  }
}).observe({ entryTypes: ['gc'] });

/** A site's name: function, then its file relative to the build's root (or node's own), and line. */
function siteOf(frame) {
  const url = frame.url.replace(/^file:\/\//, '');
  let file = url.startsWith(rootUrl.pathname) ? url.slice(rootUrl.pathname.length) : url;
  if (file === '') file = '(native)';
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/** Self sizes by site; a native function's (push, Map, keys) are named with the JavaScript frame that called it. */
function aggregate(profile) {
  const sites = {};
  const walk = (node, caller) => {
    const native = node.callFrame.url === '';
    const site = native && caller ? `${node.callFrame.functionName || '(native)'} ← ${caller}` : siteOf(node.callFrame);
    if (node.selfSize > 0) sites[site] = (sites[site] ?? 0) + node.selfSize;
    for (const child of node.children) walk(child, native ? caller : siteOf(node.callFrame));
  };
  walk(profile.head, undefined);
  return sites;
}

process.on('message', (message) => {
  const type = message && typeof message === 'object' ? message.type : undefined;
  if (type === 'alloc-start') {
    sampling = message.all === true;
    if (!sampling) for (let i = 0; i < 3; i++) gc();
    session
      .post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMinorGC: sampling, includeObjectsCollectedByMajorGC: sampling })
      .then(() => process.send?.({ type: 'alloc-started' }));
  }
  if (type === 'alloc-stop') {
    if (!sampling) for (let i = 0; i < 3; i++) gc();
    const heapUsed = process.memoryUsage().heapUsed;
    session.post('HeapProfiler.stopSampling').then(({ profile }) => process.send?.({ type: 'alloc', sites: aggregate(profile), heapUsed }));
  }
  if (type === 'gc-start') {
    gcs = { scavenges: 0, scavengeMs: 0, majors: 0, majorMs: 0 };
    process.send?.({ type: 'gc-started' });
  }
  if (type === 'gc-stop') process.send?.({ type: 'gc', ...gcs });
  if (type === 'heap') {
    for (let i = 0; i < 3; i++) gc();
    process.send?.({ type: 'heap', heapUsed: process.memoryUsage().heapUsed });
  }
});

childReady(url, { root }, async () => {
  session.disconnect();
  await app.close();
});
