/* global process, setInterval */
// Preloaded into a measured child by bench/old-gen.ts (`node --import bench/old-gen-probe.mjs …`):
// samples V8's heap spaces every 20 ms and sums each old space's growth between samples (drops, a
// mark-compact's work, are not counted), answering {type:'old-gen'} over IPC with the sums since
// the last ask. Plain JavaScript: no loader.
import v8 from 'node:v8';

const OLD = new Set(['old_space', 'large_object_space', 'code_space', 'trusted_space', 'trusted_large_object_space', 'shared_space']);
const used = () => new Map(v8.getHeapSpaceStatistics().filter((s) => OLD.has(s.space_name)).map((s) => [s.space_name, s.space_used_size]));
let last = used();
let growth = new Map();
setInterval(() => {
  const now = used();
  for (const [name, size] of now) {
    const delta = size - (last.get(name) ?? 0);
    if (delta > 0) growth.set(name, (growth.get(name) ?? 0) + delta);
  }
  last = now;
}, 20).unref();
process.on('message', (message) => {
  if (message && typeof message === 'object' && message.type === 'old-gen') {
    process.send?.({ type: 'old-gen', growth: Object.fromEntries(growth) });
    growth = new Map();
  }
});

// {type:'sites-start'} / {type:'sites-stop'}: V8's sampling heap profiler over that window, only
// objects no scavenge collected (a scavenge before the stop, so the young survivors of the last
// one are not counted as promoted), answered as bytes by allocation site (function file:line,
// a built-in named with its caller).
import { Session } from 'node:inspector';
import vm from 'node:vm';

let session;
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
function siteOf(frame) {
  const { functionName, url, lineNumber } = frame;
  const file = url.includes('/dist/') ? url.slice(url.indexOf('/dist/') + 1) : url.includes('node_modules/') ? url.slice(url.lastIndexOf('node_modules/') + 13) : url;
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}
function aggregate(node, into, parent = '') {
  const own = siteOf(node.callFrame);
  const builtin = node.callFrame.url === '' || node.callFrame.url.startsWith('node:');
  if (node.selfSize > 0) {
    const site = builtin && parent ? `${own} <- ${parent}` : own;
    into[site] = (into[site] ?? 0) + node.selfSize;
  }
  for (const child of node.children) aggregate(child, into, builtin && parent ? parent : own);
}
process.on('message', async (message) => {
  const type = message && typeof message === 'object' ? message.type : undefined;
  if (type === 'sites-start') {
    session ??= new Session();
    session.connect();
    await post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMinorGC: false, includeObjectsCollectedByMajorGC: true });
    process.send?.({ type: 'sites-started' });
  }
  if (type === 'sites-stop') {
    v8.setFlagsFromString('--expose-gc');
    vm.runInNewContext('gc')({ type: 'minor' });
    const { profile } = await post('HeapProfiler.stopSampling');
    session.disconnect();
    const sites = {};
    aggregate(profile.head, sites);
    process.send?.({ type: 'sites', sites });
  }
});

// {type:'snapshot', path}: a heap snapshot written to path (what is alive, with retainers).
import './heap-hook.mjs';
