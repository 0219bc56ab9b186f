import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type Child, BENCH_DIR, log, ROOT_DIR, round, sleep, spawnChild } from './common.js';
import { dominators, readSnapshot, retainedSizes } from './heap-snapshot.js';
import { tempConfig } from './inproc.js';
import { openStreams } from './load.js';
import { gatewayConfig, modelFor, requestBody } from './scenario.js';
import { post, SHIPPED_NODE_ARGS } from './servers.js';

// What an open stream holds, from heap snapshots: each target (toolgate builds, the bare passthrough)
// in its own process with `npm start`'s flags; a snapshot at idle (after a warm-up), then --count slow
// streams opened at once (bench/upstream.ts's /slow, BENCH_SLOW_MS=1000: 20 events 1 s apart) and a
// second snapshot once every one has its first bytes. Objects in the second snapshot whose V8 id was
// not in the first are what the open streams hold (a snapshot collects garbage first); per open
// stream: their bytes by kind (constructor, closure name, string, array...), and by "holder" — the
// new objects that new objects hang from (whose immediate dominator existed at idle), with what each
// retains. Snapshots go to a temporary folder, removed unless --keep.
//
//   node --import tsx bench/stream-heap.ts [--gw=<label>=<root> ...] [--bare] [--count=1000]
//        [--top=30] [--keep]
//
// Each root needs a built dist/ (default, without --gw: this checkout). 127.0.0.1 only.

function flag(name: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

interface Result {
  label: string;
  /** Bytes per open stream of new objects by kind, and retained by holder kind. */
  kinds: Map<string, number>;
  holders: Map<string, number>;
  total: number;
  heapUsedIdle: number;
  heapUsedOpen: number;
}

function analyze(label: string, idlePath: string, openPath: string, count: number, heapUsedIdle: number, heapUsedOpen: number): Result {
  const idle = readSnapshot(idlePath);
  const known = new Set<number>(idle.id);
  const snap = readSnapshot(openPath);
  const fresh = new Uint8Array(snap.count);
  for (let n = 0; n < snap.count; n++) if (!known.has(snap.id[n])) fresh[n] = 1;
  const idom = dominators(snap);
  const retained = retainedSizes(snap, idom);
  const kinds = new Map<string, number>();
  const holders = new Map<string, number>();
  let total = 0;
  for (let n = 0; n < snap.count; n++) {
    if (!fresh[n] || idom[n] === -1) continue;
    total += snap.size[n];
    kinds.set(snap.key[n], (kinds.get(snap.key[n]) ?? 0) + snap.size[n]);
    if (!fresh[idom[n]]) {
      const holder = `${snap.key[n]} ← ${snap.key[idom[n]]}`;
      holders.set(holder, (holders.get(holder) ?? 0) + retained[n]);
    }
  }
  const per = (map: Map<string, number>): Map<string, number> => new Map([...map].map(([k, v]) => [k, v / count]));
  return { label, kinds: per(kinds), holders: per(holders), total: total / count, heapUsedIdle, heapUsedOpen };
}

async function measure(label: string, child: Child, url: string, warmUrl: string, body: string, warmBody: string, count: number, dir: string): Promise<Result> {
  await Promise.all(Array.from({ length: 20 }, () => post(warmUrl, warmBody)));
  await sleep(300);
  const idlePath = join(dir, `${label}-idle.heapsnapshot`);
  const openPath = join(dir, `${label}-open.heapsnapshot`);
  const idle = await child.ask<{ heapUsed: number }>({ type: 'snapshot', path: idlePath }, 'snapshot-written', 120_000);
  const streams = openStreams(url, body, count);
  await Promise.race([streams.open, streams.ended]);
  await sleep(200);
  const open = await child.ask<{ heapUsed: number }>({ type: 'snapshot', path: openPath }, 'snapshot-written', 120_000);
  const ended = await streams.ended;
  await streams.pool.close();
  if (ended.some((ok) => !ok)) throw new Error(`${label}: ${ended.filter((ok) => !ok).length} streams failed`);
  log(`${label}: snapshots written, analyzing`);
  return analyze(label, idlePath, openPath, count, idle.heapUsed, open.heapUsed);
}

async function main(): Promise<void> {
  const count = Number(flag('count') ?? 1000);
  const top = Number(flag('top') ?? 30);
  const given = process.argv.filter((arg) => arg.startsWith('--gw=')).map((arg) => arg.slice(5).split('=') as [string, string]);
  // No --gw: this checkout's build.
  const specs: Array<[string, string]> = given.length > 0 ? given : [['toolgate', ROOT_DIR]];
  const dir = mkdtempSync(join(os.tmpdir(), 'toolgate-heap-'));
  const upstream = await spawnChild('upstream.ts', [], { env: { BENCH_SLOW_MS: process.env.BENCH_SLOW_MS ?? '1000', BENCH_SLOW_CHUNKS: '20' } });
  const config = tempConfig('stream-heap', gatewayConfig(upstream.url, 'warn'));
  const nodeArgs = [...SHIPPED_NODE_ARGS, '--import', `${BENCH_DIR}heap-hook.mjs`];
  const results: Result[] = [];
  try {
    for (const [label, root] of specs) {
      const child = await spawnChild('gateway-child.mjs', [config.path, 'dist', root], { nodeArgs });
      try {
        const url = `${child.url}/v1/chat/completions`;
        results.push(await measure(label, child, url, url, requestBody({ stream: true, model: modelFor('slow') }), requestBody({ stream: true, model: modelFor('paced') }), count, dir));
      } finally {
        await child.stop();
      }
    }
    if (process.argv.includes('--bare')) {
      const child = await spawnChild('bare-proxy.mjs', [`${upstream.url}/v1`], { nodeArgs });
      try {
        const body = requestBody({ stream: true, model: 'bench-slow' });
        results.push(await measure('bare', child, `${child.url}/slow/v1/chat/completions`, `${child.url}/v1/chat/completions`, body, body, count, dir));
      } finally {
        await child.stop();
      }
    }
  } finally {
    await upstream.stop();
    config.remove();
    if (process.argv.includes('--keep')) log(`snapshots kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  report(results, count, top);
}

function report(results: Result[], count: number, top: number): void {
  const kb = (bytes: number | undefined): string => String(round((bytes ?? 0) / 1024, 2));
  const out = [`### Held per open stream (${count} open), KB`, '', `| | ${results.map((r) => r.label).join(' | ')} |`, `|---|${results.map(() => '---:').join('|')}|`];
  out.push(`| new objects (snapshot) | ${results.map((r) => kb(r.total)).join(' | ')} |`);
  // Code compiled meanwhile and Node's own native nodes (new ids in every snapshot) are not the streams'.
  const notStreams = (r: Result): number => [...r.kinds].filter(([key]) => key === '(code)' || key === '(synthetic)' || key.startsWith('(native Node')).reduce((sum, [, bytes]) => sum + bytes, 0);
  out.push(`| new objects without code and Node's native nodes | ${results.map((r) => kb(r.total - notStreams(r))).join(' | ')} |`);
  out.push(`| heapUsed open − idle (after GC) | ${results.map((r) => kb((r.heapUsedOpen - r.heapUsedIdle) / count)).join(' | ')} |`);
  for (const [what, pick] of [
    ['by kind (self size)', (r: Result) => r.kinds],
    ['by holder (retained; holder ← what holds it)', (r: Result) => r.holders],
  ] as const) {
    const keys = new Set<string>();
    for (const r of results) for (const [key] of [...pick(r)].sort((a, b) => b[1] - a[1]).slice(0, top)) keys.add(key);
    const ranked = [...keys].sort((a, b) => (pick(results[0]).get(b) ?? 0) - (pick(results[0]).get(a) ?? 0));
    out.push('', `### ${what}, KB per open stream`, '', `| | ${results.map((r) => r.label).join(' | ')} |`, `|---|${results.map(() => '---:').join('|')}|`);
    for (const key of ranked) out.push(`| \`${key}\` | ${results.map((r) => kb(pick(r).get(key))).join(' | ')} |`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
