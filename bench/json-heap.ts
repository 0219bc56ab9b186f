import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { spawnChild } from './common.js';
import { flags, gatewayFlags, load, tempConfig, type Built } from './inproc.js';
import { gatewayConfig, requestBody } from './scenario.js';

// Bytes allocated per JSON request, by allocation site, for each build: V8's sampling heap profiler
// in this process over a batch of requests through Fastify's inject (bench/json-inproc.ts's
// request). `--survivors` counts only objects no scavenge collected (what a scavenge copies and
// promotes: the moderate-load p99's pauses); without it, every object allocated. Sampling is
// statistical: compare the totals and the larger sites, not bytes of a small one.
//
//   node --import tsx bench/json-heap.ts --gw=before=<root> --gw=after=<root> [--requests=4000] [--survivors] [--http[=req/s]] [--top=25]

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/**
 * Over a socket at a paced rate (`--http[=req/s]`, default 1000): the moderate load of the p99 goal,
 * where what a request holds across a scavenge is what the scavenge copies. The client (undici)
 * allocates in this process too: read the gateway's own sites.
 */
async function runHttp(url: string, body: string, requests: number, rate: number): Promise<void> {
  const pool = new Pool(url, { connections: 32 });
  const started = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < requests; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      pool.request({ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body }).then(async (response) => {
        await response.body.text();
        if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      }),
    );
  }
  await Promise.all(pending);
  await pool.close();
}

async function run(built: Built, body: string, requests: number): Promise<void> {
  let left = requests;
  const worker = async (): Promise<void> => {
    while (left-- > 0) {
      const response = await built.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, payload: body });
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

function siteOf(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.includes('/dist/') ? url.slice(url.indexOf('/dist/') + 1) : url.includes('node_modules/') ? url.slice(url.lastIndexOf('node_modules/') + 13) : url.replace(pathToFileURL(root).href, '');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/** A built-in's allocations (Map, Object.keys, a regex match) are named with their caller. */
function aggregate(node: ProfileNode, root: string, into: Map<string, number>, parent = ''): void {
  const own = siteOf(node, root);
  const builtin = node.callFrame.url === '' || node.callFrame.url.startsWith('node:');
  if (node.selfSize > 0) {
    const site = builtin && parent ? `${own} <- ${parent}` : own;
    into.set(site, (into.get(site) ?? 0) + node.selfSize);
  }
  const caller = builtin && parent ? parent : own;
  for (const child of node.children) aggregate(child, root, into, caller);
}

/** A scavenge now (V8's gc extension, exposed for this process without a command-line flag). */
function minorGc(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (options: { type: 'minor' }) => void;
  gc({ type: 'minor' });
}

async function main(): Promise<void> {
  const requests = Number(flags('requests')[0] ?? 4000);
  const top = Number(flags('top')[0] ?? 25);
  const survivors = process.argv.includes('--survivors');
  const http = process.argv.find((arg) => arg === '--http' || arg.startsWith('--http='));
  const rate = http?.includes('=') ? Number(http.slice('--http='.length)) : 1000;
  const upstream = await spawnChild('upstream.ts', []);
  const config = tempConfig('json-heap', gatewayConfig(upstream.url, 'warn'));
  const body = requestBody();
  const session = new Session();
  session.connect();
  try {
    for (const { label, root } of gatewayFlags()) {
      const built = await load(root, config.path);
      const url = http ? await (built.app as unknown as { listen(options: object): Promise<string> }).listen({ host: '127.0.0.1', port: 0 }) : '';
      const load_ = (count: number): Promise<void> => (http ? runHttp(url, body, count, rate) : run(built, body, count));
      await load_(3000);
      await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMinorGC: !survivors, includeObjectsCollectedByMajorGC: true });
      await load_(requests);
      // Young objects that died since the last scavenge are still sampled (up to a semi-space of
      // garbage): a scavenge first, so --survivors counts only what a scavenge would copy.
      if (survivors) minorGc();
      const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
      await built.app.close();
      const sites = new Map<string, number>();
      aggregate(profile.head, root, sites);
      const total = [...sites.values()].reduce((sum, bytes) => sum + bytes, 0);
      process.stdout.write(`\n## ${label}: ${(total / requests).toFixed(0)} B per request ${survivors ? 'surviving a scavenge' : 'allocated'} (${requests} requests, ${http ? `HTTP at ${rate}/s, 32 connections` : 'inject, c=32'})\n`);
      for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, top)) {
        process.stdout.write(`${(bytes / requests).toFixed(0).padStart(7)} B  ${site}\n`);
      }
    }
  } finally {
    session.disconnect();
    config.remove();
    await upstream.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`json-heap failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
