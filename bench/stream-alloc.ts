import { writeFileSync } from 'node:fs';
import { type Child, log, round, sleep, spawnChild } from './common.js';
import { tempConfig } from './inproc.js';
import { openStreams, streamLoad } from './load.js';
import { gatewayConfig, modelFor, requestBody, type UpstreamVariant } from './scenario.js';
import { SHIPPED_NODE_ARGS } from './servers.js';

// What a stream allocates and what of it lives long, per allocation site, for toolgate builds side
// by side (each in its own process, bench/alloc-child.mjs, with `npm start`'s node flags; a client
// in this process over sockets; bench/upstream.ts as the upstream). Per build and round:
//   GCs       — scavenges and major GCs per 1,000 streams and their pauses (perf_hooks 'gc'
//               entries), at the load with no profiler on; the TTFB p99 of that run on the way;
//   allocated — V8's sampling heap profiler (every 256 bytes) counting every allocation;
//   held      — --open slow streams (bench/upstream.ts's /slow, BENCH_SLOW_MS=200 unless set)
//               waiting for their next event: what was allocated since they started and is alive
//               (full GCs first) once all of them have their first bytes, per open stream and site
//               (what a scavenge copies and promotes), and heapUsed then minus after they ended.
// Streams go at --rate per second over --connections (the bench's moderate SSE load by default:
// paced upstream, 480/s, 32 connections). Builds alternate round by round; figures are per stream,
// summed over the rounds. Sites are "function file:line" of the top frame (self size).
//
//   node --import tsx bench/stream-alloc.ts --gw=<label>=<root> [--gw=...] [--rounds=2]
//        [--streams=2400] [--rate=480] [--connections=32] [--variant=paced|burst] [--top=20]
//        [--open=100] [--json=<file>] [--node=<node binary>]
//        [--held-after=ms] (measure what open streams hold this long after all started: with
//        BENCH_SLOW_CHUNKS=400 BENCH_SLOW_MS=20, what a long answer holds mid-stream)
//        [--node-args="--flag ..."] (more node flags for the builds, e.g. --no-turbo-inlining: sites by the
//        function that allocates rather than the one it was inlined into)
//
// Each root needs a built dist/ (npm run build there). 127.0.0.1 only.

function flag(name: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

interface Gc {
  scavenges: number;
  scavengeMs: number;
  majors: number;
  majorMs: number;
}

interface Build {
  label: string;
  root: string;
  child: Child;
  /** Streams of the allocation runs, and of the GC-counting runs. */
  streams: number;
  gcStreams: number;
  allocated: Record<string, number>;
  /** What the open slow streams held (summed over rounds), and how many were open. */
  held: Record<string, number>;
  opened: number;
  gc: Gc;
  ttfbP99: number[];
  openKb: number[];
}

function add(into: Record<string, number>, from: Record<string, number>): void {
  for (const [site, bytes] of Object.entries(from)) into[site] = (into[site] ?? 0) + bytes;
}

function total(sites: Record<string, number>): number {
  return Object.values(sites).reduce((sum, bytes) => sum + bytes, 0);
}

function checked(build: Build, run: { errors: number; incomplete: number }): void {
  if (run.errors > 0 || run.incomplete > 0) throw new Error(`${build.label}: ${run.errors} errors, ${run.incomplete} incomplete streams`);
}

/** GCs per stream at the load (no profiler on), and the TTFB p99 on the way. */
async function counted(build: Build, url: string, body: string, streams: number, rate: number, connections: number): Promise<void> {
  await build.child.ask({ type: 'gc-start' }, 'gc-started');
  const run = await streamLoad(url, body, connections, streams / rate, rate);
  const gcs = await build.child.ask<Gc>({ type: 'gc-stop' }, 'gc');
  checked(build, run);
  build.gcStreams += run.streams;
  build.gc.scavenges += gcs.scavenges;
  build.gc.scavengeMs += gcs.scavengeMs;
  build.gc.majors += gcs.majors;
  build.gc.majorMs += gcs.majorMs;
  build.ttfbP99.push(run.ttfbP99);
  log(`${build.label}: ${run.streams} streams, ${gcs.scavenges} scavenges (${round(gcs.scavengeMs, 1)} ms), ${gcs.majors} major GCs, TTFB p99 ${run.ttfbP99} ms`);
}

/** Every allocation of the streams at the load, by site. */
async function allocated(build: Build, url: string, body: string, streams: number, rate: number, connections: number): Promise<void> {
  await build.child.ask({ type: 'alloc-start', all: true }, 'alloc-started');
  const run = await streamLoad(url, body, connections, streams / rate, rate);
  const result = await build.child.ask<{ sites: Record<string, number> }>({ type: 'alloc-stop' }, 'alloc', 60_000);
  checked(build, run);
  add(build.allocated, result.sites);
  build.streams += run.streams;
  log(`${build.label} allocated: ${round(total(result.sites) / run.streams / 1024, 2)} KB/stream over ${run.streams} streams`);
}

/**
 * What `count` open slow streams hold, waiting for their upstream's next event: objects allocated
 * since they started and alive (after full GCs) once every one has its first bytes, by site; and
 * heapUsed then minus after they ended.
 */
async function held(build: Build, url: string, body: string, count: number, afterMs: number): Promise<void> {
  await build.child.ask({ type: 'alloc-start', all: false }, 'alloc-started', 60_000);
  const streams = openStreams(url, body, count);
  await Promise.race([streams.open, streams.ended]);
  if (afterMs > 0) await sleep(afterMs);
  const during = await build.child.ask<{ sites: Record<string, number>; heapUsed: number }>({ type: 'alloc-stop' }, 'alloc', 60_000);
  const ended = await streams.ended;
  await streams.pool.close();
  await sleep(200);
  const idle = await build.child.ask<{ heapUsed: number }>({ type: 'heap' }, 'heap', 60_000);
  if (streams.opened() < count) throw new Error(`${build.label}: streams ended before all ${count} were open: use a slower upstream (BENCH_SLOW_MS)`);
  if (ended.some((ok) => !ok)) throw new Error(`${build.label}: ${ended.filter((ok) => !ok).length} slow streams failed`);
  add(build.held, during.sites);
  build.opened += count;
  build.openKb.push((during.heapUsed - idle.heapUsed) / count / 1024);
  log(`${build.label} per open stream: heap ${round(build.openKb[build.openKb.length - 1], 2)} KB, sampled alive ${round(total(during.sites) / count / 1024, 2)} KB`);
}

async function main(): Promise<void> {
  const specs = process.argv.filter((arg) => arg.startsWith('--gw=')).map((arg) => arg.slice(5).split('='));
  if (specs.length === 0) throw new Error('usage: bench/stream-alloc.ts --gw=<label>=<root> [--gw=...]');
  const rounds = Number(flag('rounds') ?? 2);
  const streams = Number(flag('streams') ?? 2400);
  const rate = Number(flag('rate') ?? 480);
  const connections = Number(flag('connections') ?? 32);
  const variant = (flag('variant') ?? 'paced') as UpstreamVariant;
  const top = Number(flag('top') ?? 20);
  // Streams held open at once while the heap is measured.
  const open = Number(flag('open') ?? 100);
  const heldAfter = Number(flag('held-after') ?? 0);
  // Slow streams of 20 events 200 ms apart: all of them open at once even on a busy machine.
  const upstream = await spawnChild('upstream.ts', [], { env: { BENCH_SLOW_MS: process.env.BENCH_SLOW_MS ?? '200', BENCH_SLOW_CHUNKS: process.env.BENCH_SLOW_CHUNKS ?? '20' } });
  const config = tempConfig('stream-alloc', gatewayConfig(upstream.url, 'warn'));
  const builds: Build[] = [];
  try {
    for (const [label, root] of specs) {
      const child = await spawnChild('alloc-child.mjs', [config.path, root], { nodeArgs: [...SHIPPED_NODE_ARGS, '--expose-gc', ...(flag('node-args') ?? '').split(' ').filter(Boolean)], execPath: flag('node') });
      builds.push({ label, root, child, streams: 0, gcStreams: 0, allocated: {}, held: {}, opened: 0, gc: { scavenges: 0, scavengeMs: 0, majors: 0, majorMs: 0 }, ttfbP99: [], openKb: [] });
    }
    const body = requestBody({ stream: true, model: modelFor(variant) });
    const slowBody = requestBody({ stream: true, model: modelFor('slow') });
    for (const build of builds) await streamLoad(`${build.child.url}/v1/chat/completions`, body, connections, 2, rate);
    for (let r = 0; r < rounds; r++) {
      for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
        const url = `${build.child.url}/v1/chat/completions`;
        await counted(build, url, body, streams, rate, connections);
        await allocated(build, url, body, streams, rate, connections);
        if (open > 0) await held(build, url, slowBody, open, heldAfter);
      }
    }
  } finally {
    for (const build of builds) await build.child.stop();
    await upstream.stop();
    config.remove();
  }
  report(builds, variant, rate, connections, top);
  const json = flag('json');
  if (json) writeFileSync(json, JSON.stringify(builds.map(({ child: _child, ...rest }) => rest), null, 1));
}

function report(builds: Build[], variant: string, rate: number, connections: number, top: number): void {
  const mean = (values: number[]): string => (values.length > 0 ? String(round(values.reduce((sum, v) => sum + v, 0) / values.length, 2)) : '–');
  const per1k = (value: number, build: Build): number => round((value * 1000) / build.gcStreams, 1);
  const out: string[] = [];
  out.push(`### Per stream (${variant} upstream, ${rate}/s over ${connections} connections; held: slow streams open)`, '');
  out.push(
    '| build | allocated KB/stream | scavenges /1k streams | scavenge ms /1k | major GCs /1k | major ms /1k | TTFB p99 ms (mean) | heap per open stream KB | sampled alive per open stream KB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const b of builds) {
    const alive = b.opened > 0 ? String(round(total(b.held) / b.opened / 1024, 2)) : '–';
    out.push(
      `| ${b.label} | ${round(total(b.allocated) / b.streams / 1024, 2)} | ${per1k(b.gc.scavenges, b)} | ${per1k(b.gc.scavengeMs, b)} | ${per1k(b.gc.majors, b)} | ${per1k(b.gc.majorMs, b)} | ${mean(b.ttfbP99)} | ${mean(b.openKb)} | ${alive} |`,
    );
  }
  const byFile = (sites: Record<string, number>): Record<string, number> => {
    const files: Record<string, number> = {};
    for (const [site, bytes] of Object.entries(sites)) {
      const file = site.includes(' ← ') ? `(native) ← ${site.split(' ← ')[1].split(' ').slice(1).join(' ').replace(/:\d+$/, '')}` : site.split(' ').slice(1).join(' ').replace(/:\d+$/, '');
      files[file] = (files[file] ?? 0) + bytes;
    }
    return files;
  };
  const tables = [
    ['allocated per stream, by file', (b: Build) => byFile(b.allocated), (b: Build) => b.streams],
    ['allocated per stream', (b: Build) => b.allocated, (b: Build) => b.streams],
    ['held per open stream', (b: Build) => b.held, (b: Build) => b.opened],
  ] as const;
  for (const [what, pick, count] of tables) {
    const sites = new Set<string>();
    for (const b of builds) for (const [site] of Object.entries(pick(b)).sort((x, y) => y[1] - x[1]).slice(0, top)) sites.add(site);
    const ranked = [...sites].sort((x, y) => (pick(builds[0])[y] ?? 0) - (pick(builds[0])[x] ?? 0));
    out.push('', `### Top sites, bytes ${what}`, '', `| site | ${builds.map((b) => `${b.label} B`).join(' | ')} |`, `|---|${builds.map(() => '---:').join('|')}|`);
    for (const site of ranked) out.push(`| \`${site}\` | ${builds.map((b) => (count(b) > 0 ? Math.round((pick(b)[site] ?? 0) / count(b)) : 0)).join(' | ')} |`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
