import { type Child, loadAverage, log, machineTicks, procCpuMs, round, selfAndReapedTicks } from './common.js';
import { goalsFor } from './goals.js';
import { jsonLoad, pacedJsonLoad, streamLoad } from './load.js';
import type { Found } from './peers.js';
import { checkSanity, endpoint, manyStreamsThrough, type ServerSet, startBare, startDefaultGateway, startServers, stopAll } from './servers.js';
import { summarizePhase } from './summarize.js';
import { MODERATE_SHARE, moderateRounds, type ManyStreamsResult, type Mode, type NodeRun, type Phase, type Row, type Target } from './types.js';

// One Node version's run: every server (toolgate and its feature variants, the proxies, Portkey) on
// that Node, the load generator in the bench process. Rounds alternate the targets (rotated each
// round) inside every (mode, concurrency) cell, so paired ratios compare runs adjacent in time.

export interface NodeFlags {
  quick: boolean;
  rounds: number;
  durationS: number;
  skip: Set<string>;
}

export interface NodeContext {
  flags: NodeFlags;
  execPath: string;
  node: string;
  impl: 'dist' | 'src';
  upstream: Child;
  tmp: string;
  portkey: Found;
  slow: { chunks: number; ms: number };
}

const MANY_STREAMS = 1000;
interface Cell {
  phase: Mode;
  concurrency: number;
  targets: Target[];
}

/** What each round measures: every available peer at 32 connections; direct, bare and toolgate at 1. */
export function plan(available: readonly Target[]): Cell[] {
  const has = (targets: Target[]): Target[] => targets.filter((t) => available.includes(t));
  const peers: Target[] = ['direct', 'bare', 'parse', 'toolgate', 'portkey', 'toolgate-inspector', 'toolgate-contract-off'];
  return [
    { phase: 'json', concurrency: 32, targets: has(peers) },
    { phase: 'burst', concurrency: 32, targets: has(peers) },
    { phase: 'paced', concurrency: 32, targets: has(peers) },
    { phase: 'json', concurrency: 1, targets: has(['direct', 'bare', 'toolgate']) },
    { phase: 'paced', concurrency: 1, targets: has(['direct', 'bare', 'toolgate']) },
  ];
}

function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const n = by % items.length;
  return [...items.slice(n), ...items.slice(0, n)];
}

export async function runNode(ctx: NodeContext): Promise<NodeRun> {
  const started = Date.now();
  const { flags, upstream } = ctx;
  const machineBefore = machineTicks();
  const oursBefore = selfAndReapedTicks() + procCpuMs(upstream.pid) / 10;
  const run: NodeRun = { node: ctx.node, execPath: ctx.execPath, notes: [], sanity: {}, loadavgStart: loadAverage(), phases: {} };
  if (ctx.portkey.ok) run.portkeyVersion = ctx.portkey.version;
  const options = { execPath: ctx.execPath, impl: ctx.impl, upstream, tmp: ctx.tmp, portkey: ctx.portkey };
  log(`${ctx.node}: starting servers…`);
  const set: ServerSet = await startServers(options, !flags.skip.has('features'), !flags.skip.has('portkey'));
  run.notes.push(...set.notes);
  try {
    const candidates: Target[] = ['direct', 'bare', 'parse', 'toolgate', 'portkey', 'toolgate-inspector', 'toolgate-contract-off'];
    const available = await checkSanity(set, upstream, candidates.filter((t) => t === 'direct' || set.children[t]));
    run.notes.push(...set.notes.filter((note) => !run.notes.includes(note)));
    run.sanity = set.sanity;
    const childOf = (target: Target): Child => (target === 'direct' ? upstream : set.children[target]!);
    const request = (target: Target, mode: Mode) => endpoint(set, upstream, target, mode);
    const measure = async (target: Target, mode: Mode, concurrency: number, roundIndex: number, rate?: number): Promise<Row> => {
      const { url, body, headers } = request(target, mode);
      const pid = childOf(target).pid;
      const before = procCpuMs(pid);
      const sse = mode !== 'json';
      const seconds = sse ? Math.max(1, flags.durationS - 1) : flags.durationS;
      let row: Row;
      if (!sse) {
        const r = rate ? await pacedJsonLoad(url, body, concurrency, seconds, rate, headers) : await jsonLoad(url, body, concurrency, seconds, headers);
        row = { ...r, concurrency, target, round: roundIndex, errors: r.errors + r.non2xx, cpuUsPerReq: 0, ...(rate ? { rate } : {}) };
      } else {
        const r = await streamLoad(url, body, concurrency, seconds, rate, true, headers);
        row = { ...r, requests: r.streams, concurrency, target, round: roundIndex, errors: r.errors + r.incomplete, cpuUsPerReq: 0, ...(rate ? { rate } : {}) };
      }
      row.cpuUsPerReq = round(((procCpuMs(pid) - before) * 1000) / Math.max(1, row.requests), 0);
      return row;
    };

    // Warm up JIT and pools on every target: 1 s of JSON, half a second of each stream kind.
    for (const target of available) {
      for (const mode of ['json', 'burst', 'paced'] as const) {
        const { url, body, headers } = request(target, mode);
        if (mode === 'json') await jsonLoad(url, body, 32, 1, headers);
        else await streamLoad(url, body, 32, 0.5, undefined, true, headers);
      }
    }

    const cells = plan(available).filter((cell) => !flags.skip.has(cell.phase.startsWith('json') ? 'json' : 'sse'));
    const rows: Partial<Record<Mode, Row[]>> = {};
    for (let round = 0; round < flags.rounds; round++) {
      for (const cell of cells) {
        for (const target of rotate(cell.targets, round + cell.concurrency)) {
          const row = await measure(target, cell.phase, cell.concurrency, round);
          (rows[cell.phase] ??= []).push(row);
          log(`${ctx.node} r${round} ${cell.phase} c=${cell.concurrency} ${target}: ${row.rps}/s cpu ${row.cpuUsPerReq} µs err ${row.errors}`);
        }
      }
    }
    for (const [mode, list] of Object.entries(rows) as Array<[Mode, Row[]]>) {
      run.phases[mode] = { mode, rows: list, summary: summarizePhase(list, mode) };
    }

    // Moderate load: 32 connections starting requests on a smooth schedule at a quarter of toolgate's
    // capacity, so latency is per-request overhead rather than queueing.
    for (const [mode, key] of [['json', 'json-moderate'], ['paced', 'paced-moderate']] as const) {
      const phase = run.phases[mode];
      if (!phase || flags.skip.has('moderate')) continue;
      const capacity = phase.summary.find((row) => row.concurrency === 32 && row.target === 'toolgate')?.rps ?? 200;
      const rate = Math.max(10, Math.round((capacity * MODERATE_SHARE) / 10) * 10);
      const list: Row[] = [];
      for (let round = 0; round < moderateRounds(flags.rounds); round++) {
        for (const target of rotate(['direct', 'bare', 'toolgate'] as Target[], round)) {
          const row = await measure(target, mode, 32, round, rate);
          list.push(row);
          log(`${ctx.node} moderate ${mode} ${rate}/s r${round} ${target}: p50 ${row.p50 ?? row.ttfbP50} ms p99 ${row.p99 ?? row.ttfbP99} ms`);
        }
      }
      const moderate: Phase = { mode, rate, rows: list, summary: summarizePhase(list, mode) };
      run.phases[key] = moderate;
    }
    const portkey = set.children.portkey;
    if (portkey) {
      const stats = await portkey.ask<{ loggedErrors: number }>({ type: 'stats' }, 'stats').catch(() => ({ loggedErrors: NaN }));
      if (stats.loggedErrors > 0) run.notes.push(`Portkey logged ${stats.loggedErrors} errors to its console during the run`);
    }
  } finally {
    await stopAll(set);
  }

  if (!flags.skip.has('many')) run.manyStreams = await manyStreamsPhase(ctx);
  run.loadavgEnd = loadAverage();
  run.elapsedS = round((Date.now() - started) / 1000, 0);
  // Every server of this run has exited (reaped: in cutime/cstime); the upstream lives on.
  const machine = machineTicks();
  const ours = selfAndReapedTicks() + procCpuMs(upstream.pid) / 10 - oursBefore;
  const total = Math.max(1, machine.total - machineBefore.total);
  run.machineBusyPct = round((100 * (machine.busy - machineBefore.busy)) / total, 1);
  run.otherWorkPct = round(Math.max(0, (100 * (machine.busy - machineBefore.busy - ours)) / total), 1);
  run.goals = goalsFor(run);
  return run;
}

/** 1,000 slow streams at once through a fresh toolgate and a fresh bare proxy (their VmHWM covers this test only). */
async function manyStreamsPhase(ctx: NodeContext): Promise<ManyStreamsResult[]> {
  const out: ManyStreamsResult[] = [];
  const options = { execPath: ctx.execPath, impl: ctx.impl, upstream: ctx.upstream, tmp: ctx.tmp, portkey: ctx.portkey };
  for (const target of ['toolgate', 'bare'] as const) {
    const server = target === 'toolgate' ? await startDefaultGateway(options) : await startBare(options);
    try {
      log(`${ctx.node}: ${MANY_STREAMS} concurrent slow streams through ${target} (${ctx.slow.chunks} events × ${ctx.slow.ms} ms)…`);
      const measured = await manyStreamsThrough(server, target === 'bare', ctx.upstream, MANY_STREAMS);
      out.push({ target, ...measured, slowChunks: ctx.slow.chunks, slowMs: ctx.slow.ms });
      log(`${target}: ${measured.completed}/${MANY_STREAMS} complete, ${measured.errors + measured.incomplete} errors, ${measured.wallS} s, RSS idle ${measured.idleRssMb} → peak ${measured.processPeakRssMb} MB`);
    } finally {
      await server.stop();
    }
  }
  return out;
}
