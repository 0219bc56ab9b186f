import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type PerformanceEntry, PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { BENCH_DIR, type Child, log, median, percentileSorted, procCpuMs, round, spawnChild, flags } from './common.js';
import { SHIPPED_NODE_ARGS } from './servers.js';
import { jsonLoad, streamLoad } from './load.js';
import { gatewayConfig, requestBody } from './scenario.js';

// What the moderate-load latency tail is made of. Runs the bench's open-loop moderate load (32
// connections, requests started on a smooth schedule) against the upstream direct, the bare
// passthrough and one or more toolgate builds, alternated over rounds, with every server process
// (and the upstream) under bench/tail-probe.mjs: each GC pause with its wall-clock start and length,
// and (--stalls) each event-loop turn that came ≥ 3 ms late. Every request's start and latency is
// kept, so the slowest 1% can be matched with what happened meanwhile: a GC in the proxy, in the
// upstream, in this load generator, a stall, the first second of the run, or nothing seen.
//
//   node --import tsx bench/tail.ts --gw=before=<root> --gw=after=<root> [--mode=json|paced]
//        [--rate=820] [--duration=10] [--rounds=3] [--node=<binary>] [--node-args="..."] [--stalls]
//        [--heavy=S] (first S s each of closed-loop JSON, burst and paced SSE at 32 connections, as the bench's earlier phases)
//        [--args-<label>="--flag ..."] (node flags for one build only, or the bare proxy with --args-bare)
//        [--gc-log] (the builds' stdout to this one's: with --node-args=--trace-gc-nvp, V8's GC lines)
//
// "added p99" is the target's p99 minus the direct run's p99 of the same round. 127.0.0.1 only.

interface Sample {
  at: number;
  ms: number;
}
interface Gc extends Sample {
  kind: string;
}
interface Stall extends Sample {
  cpu: number;
  queued: number;
}
interface Probe {
  gcs: Gc[];
  stalls: Stall[];
  delay: { p50: number; p99: number; max: number };
}
interface Target {
  label: string;
  child: Child | null;
  url: string;
  rows: Array<{ round: number; p50: number; p99: number; added: number; causes: Record<string, number>; gc: string; cpuUs: number }>;
}

const now = (): number => performance.timeOrigin + performance.now();

/** This process's own GC pauses (the load generator's). */
const clientGcs: Gc[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR ? 'scavenge' : 'major';
    clientGcs.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration, kind });
  }
}).observe({ entryTypes: ['gc'] });

/** Open loop: `rate` starts per second over `connections`; each request's wall-clock start and latency (TTFB for SSE). */
async function pacedLoad(url: string, body: string, rate: number, durationS: number, sse: boolean): Promise<Sample[]> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 32, pipelining: 1, keepAliveTimeout: 30_000 });
  const out: Sample[] = [];
  const started = performance.now();
  const deadline = started + durationS * 1000;
  let scheduled = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const at = started + (scheduled++ * 1000) / rate;
      if (at >= deadline) return;
      const wait = at - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const begin = performance.now();
      const response = await pool.request({ method: 'POST', path: target.pathname, headers: { 'content-type': 'application/json' }, body });
      let first = NaN;
      for await (const _part of response.body) if (Number.isNaN(first)) first = performance.now();
      const end = performance.now();
      if (response.statusCode === 200) out.push({ at: performance.timeOrigin + begin, ms: (sse ? first : end) - begin });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await pool.close();
  return out;
}

const overlaps = (request: Sample, event: Sample): boolean => event.at < request.at + request.ms && event.at + event.ms > request.at;

/** Why each of the slowest 1% was slow, first match wins, as counts. */
function causes(requests: Sample[], threshold: number, runStart: number, proxy: Probe | null, upstream: Probe, client: Gc[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const request of requests) {
    if (request.ms < threshold) continue;
    const gc = proxy?.gcs.find((event) => overlaps(request, event));
    const stall = proxy?.stalls.find((event) => overlaps(request, event));
    const how = stall ? (stall.queued > stall.ms / 2 ? ' (run queue)' : stall.cpu > stall.ms / 2 ? ' (on cpu)' : ' (off cpu)') : '';
    const cause = gc
      ? `proxy ${gc.kind}${how}`
      : stall
        ? `proxy stall${how}`
        : upstream.gcs.some((event) => overlaps(request, event))
          ? 'upstream GC'
          : client.some((event) => overlaps(request, event))
            ? 'client GC'
            : request.at - runStart < 1000
              ? 'first second'
              : 'none seen';
    out[cause] = (out[cause] ?? 0) + 1;
  }
  return out;
}

function gcSummary(probe: Probe | null, seconds: number): string {
  if (!probe) return '';
  const by = new Map<string, number[]>();
  for (const gc of probe.gcs) by.set(gc.kind, [...(by.get(gc.kind) ?? []), gc.ms]);
  const parts = [...by].map(([kind, list]) => `${kind} ${round(list.length / seconds, 1)}/s med ${round(median(list), 2)} max ${round(Math.max(...list), 2)} ms`);
  return `${parts.join('; ')}; loop delay p99 ${round(probe.delay.p99, 2)} max ${round(probe.delay.max, 1)} ms`;
}

async function main(): Promise<void> {
  const gateways = flags('gw').map((spec) => {
    const [label, root] = spec.split('=');
    if (!label || !root || !existsSync(join(root, 'dist', 'app.js'))) throw new Error(`--gw=${spec}: need label=root with a built dist/`);
    return { label, root };
  });
  const mode = flags('mode')[0] ?? 'json';
  const sse = mode === 'paced';
  const rate = Number(flags('rate')[0] ?? (sse ? 440 : 820));
  const durationS = Number(flags('duration')[0] ?? 10);
  const rounds = Number(flags('rounds')[0] ?? 3);
  const execPath = flags('node')[0] ?? process.execPath;
  const extra = (flags('node-args')[0] ?? '').split(/\s+/).filter(Boolean);
  const probeArgs = ['--import', join(BENCH_DIR, 'tail-probe.mjs')];
  const env = process.argv.includes('--stalls') ? { TAIL_PROBE_STALLS: '1' } : undefined;
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolgate-tail-'));
  const upstream = await spawnChild('upstream.ts', [], { nodeArgs: probeArgs, env });
  const config = join(tmp, 'gateway.yaml');
  writeFileSync(config, gatewayConfig(upstream.url, 'warn'));
  const path = '/v1/chat/completions';
  const body = requestBody({ stream: sse });
  const targets: Target[] = [{ label: 'direct', child: null, url: `${upstream.url}${path}`, rows: [] }];
  try {
    const bareArgs = flags('args-bare').flatMap((value) => value.split(/\s+/)).filter(Boolean);
    const bare = await spawnChild('bare-proxy.mjs', [`${upstream.url}/v1`], {
      execPath,
      nodeArgs: [...bareArgs, ...probeArgs],
      env: { ...env, TAIL_LABEL: 'bare' },
      stdio: process.argv.includes('--gc-log') ? 'inherit' : undefined,
    });
    targets.push({ label: 'bare', child: bare, url: bare.url + path, rows: [] });
    for (const { label, root } of gateways) {
      const own = flags(`args-${label}`).flatMap((value) => value.split(/\s+/)).filter(Boolean);
      const child = await spawnChild('gateway-child.mjs', [config, 'dist', root], {
        execPath,
        nodeArgs: [...SHIPPED_NODE_ARGS, ...extra, ...own, ...probeArgs],
        env: { ...env, TAIL_LABEL: label },
        stdio: process.argv.includes('--gc-log') ? 'inherit' : undefined,
      });
      targets.push({ label, child, url: child.url + path, rows: [] });
    }
    for (const target of targets) await pacedLoad(target.url, body, rate, 2, sse);
    // As in the full bench, where the moderate phases come after the closed-loop ones: a heap grown
    // under load (and a call ledger filled) before the moderate rounds.
    const heavyS = Number(flags('heavy')[0] ?? 0);
    for (const target of heavyS > 0 ? targets.slice(1) : []) {
      const pid = target.child?.pid ?? 0;
      let cpu = procCpuMs(pid);
      const json = await jsonLoad(target.url, requestBody(), 32, heavyS);
      const jsonUs = round(((procCpuMs(pid) - cpu) * 1000) / Math.max(1, json.requests), 0);
      cpu = procCpuMs(pid);
      const burst = target.label === 'bare' ? [target.url.replace(path, `/burst${path}`), requestBody({ stream: true })] : [target.url, requestBody({ stream: true, model: 'bench-burst' })];
      const run = await streamLoad(burst[0], burst[1], 32, heavyS);
      const burstUs = round(((procCpuMs(pid) - cpu) * 1000) / Math.max(1, run.streams), 0);
      log(`heavy ${target.label}: JSON ${json.rps}/s ${jsonUs} µs/req, burst ${run.rps}/s ${burstUs} µs/stream, errors ${json.errors + run.errors + run.incomplete}`);
      await streamLoad(target.url, requestBody({ stream: true }), 32, heavyS);
    }
    log(`pids: ${targets.map((t) => `${t.label} ${t.child?.pid ?? upstream.pid}`).join(", ")}`);
    log(`${mode} at ${rate}/s, ${durationS} s × ${rounds} rounds, node ${execPath === process.execPath ? process.version : execPath}, args ${[...SHIPPED_NODE_ARGS, ...extra].join(' ')}`);
    for (let round_ = 0; round_ < rounds; round_++) {
      let directP99 = NaN;
      const order = [targets[0], ...targets.slice(1).map((_, i, rest) => rest[(i + round_) % rest.length])];
      for (const target of order) {
        await target.child?.ask({ type: 'probe' }, 'probe');
        await upstream.ask({ type: 'probe' }, 'probe');
        clientGcs.length = 0;
        const runStart = now();
        const cpuBefore = target.child ? procCpuMs(target.child.pid) : 0;
        const requests = await pacedLoad(target.url, body, rate, durationS, sse);
        const cpuUs = target.child ? round(((procCpuMs(target.child.pid) - cpuBefore) * 1000) / Math.max(1, requests.length), 0) : NaN;
        const proxy = target.child ? await target.child.ask<Probe>({ type: 'probe' }, 'probe') : null;
        const up = await upstream.ask<Probe>({ type: 'probe' }, 'probe');
        const sorted = Float64Array.from(requests.map((r) => r.ms)).sort();
        const p50 = percentileSorted(sorted, 50);
        const p99 = percentileSorted(sorted, 99);
        if (!target.child) directP99 = p99;
        // Without the first second (the client's 32 new connections, a process idle since its last run).
        const later = Float64Array.from(requests.filter((r) => r.at - runStart >= 1000).map((r) => r.ms)).sort();
        const p99Later = percentileSorted(later, 99);
        const found = causes(requests, p99, runStart, proxy ?? up, up, clientGcs);
        const offCpuGcMs = round((proxy?.stalls ?? []).filter((st) => st.cpu + st.queued < st.ms / 2 && proxy?.gcs.some((g) => overlaps(st, g))).reduce((sum, st) => sum + st.ms, 0), 1);
        const gc = `CPU ${cpuUs} µs/req; GC stalls off CPU ${offCpuGcMs} ms; ${gcSummary(proxy ?? up, durationS)}`;
        target.rows.push({ round: round_, p50, p99, added: p99 - directP99, causes: found, gc, cpuUs });
        if (process.argv.includes('--dump') && proxy) {
          const big = [...proxy.gcs, ...proxy.stalls.map((s) => ({ ...s, kind: `stall cpu ${round(s.cpu, 1)} queued ${round(s.queued, 1)}` }))].filter((e) => e.ms >= 5).sort((a, b) => a.at - b.at);
          log(`  ${target.label} pauses ≥ 5 ms: ${big.map((e) => `${round((e.at - runStart) / 1000, 2)}s ${e.kind} ${round(e.ms, 1)}`).join(', ')}`);
        }
        log(`r${round_} ${target.label}: p50 ${round(p50, 2)} p99 ${round(p99, 2)} (+${round(p99 - directP99, 2)}; after 1 s ${round(p99Later, 2)}) n=${requests.length}; slowest 1%: ${JSON.stringify(found)}; ${gc}`);
      }
    }
  } finally {
    for (const target of targets) await target.child?.stop().catch(() => undefined);
    await upstream.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const lines = [`| target | p50 ms | p99 ms | added p99 ms (median, spread) | CPU µs/req |`, '|---|---:|---:|---:|---:|'];
  for (const target of targets) {
    const added = target.rows.map((r) => r.added);
    lines.push(
      `| ${target.label} | ${round(median(target.rows.map((r) => r.p50)), 2)} | ${round(median(target.rows.map((r) => r.p99)), 2)} | ${target.child ? `+${round(median(added), 2)} (${round(Math.min(...added), 2)}…${round(Math.max(...added), 2)})` : ''} | ${round(median(target.rows.map((r) => r.cpuUs)), 0)} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`tail failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
