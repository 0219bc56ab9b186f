import type { ManyStreamsRun } from './load.js';
import type { AdversarialResults } from './adversarial.js';

// Shapes shared by the bench runner, the goal verdicts and the report.

/** Moderate load = this share of toolgate's measured capacity at concurrency 32. */
export const MODERATE_SHARE = 0.25;

/** Rounds of each moderate-load phase, ≥ 5 in a full run: one GC pause can own a 3-s run's slowest
 * percent (one round in three did in a 2026-11-24 run), so the median needs more rounds. */
export function moderateRounds(rounds: number): number {
  return rounds < 3 ? rounds : Math.max(rounds, 5);
}

export type Target =
  | 'direct'
  | 'bare'
  | 'parse'
  | 'toolgate'
  | 'toolgate-inspector'
  | 'toolgate-contract-off'
  | 'portkey';

/** Report order and labels. */
export const TARGET_LABEL: Record<Target, string> = {
  direct: 'upstream direct',
  bare: 'bare Fastify + undici passthrough',
  parse: 'JSON-parsing proxy',
  toolgate: 'toolgate',
  'toolgate-inspector': 'toolgate, inspector on',
  'toolgate-contract-off': 'toolgate, tool contract off',
  portkey: 'Portkey',
};

/**
 * What the emulated upstream sends (bench/upstream.ts): "paced" = one SSE event per tick, "burst" =
 * all 22 events in one write.
 */
export type Mode = 'json' | 'paced' | 'burst';

export interface Row {
  concurrency: number;
  target: Target;
  round: number;
  /** Completed requests (JSON) or complete streams per second. */
  rps: number;
  requests: number;
  errors: number;
  /** CPU of the server process per completed request, µs (the upstream's for "direct"). */
  cpuUsPerReq: number;
  /** Fixed start rate (moderate-load runs). */
  rate?: number;
  [metric: string]: number | string | undefined;
}

export interface Summary {
  concurrency: number;
  target: Target;
  rps: number;
  /** Errors of every kind, summed over rounds (failed, non-2xx, incomplete streams). */
  errors: number;
  /** Completed requests or streams, summed over rounds. */
  requests: number;
  /** Paired per-round ratios of req/s (median over rounds): to the bare proxy, the parsing proxy, Portkey, default toolgate. */
  ratioToBare?: number;
  ratioToParse?: number;
  ratioToPortkey?: number;
  ratioToToolgate?: number;
  [metric: string]: number | string | undefined;
}

export interface Phase {
  mode: Mode;
  /** Fixed start rate for the moderate-load phases. */
  rate?: number;
  rows: Row[];
  summary: Summary[];
}

export interface ManyStreamsResult extends ManyStreamsRun {
  target: 'toolgate' | 'bare';
  idleRssMb: number;
  peakRssMb: number;
  /** VmHWM: the process's peak since it started (fresh process for this test). */
  processPeakRssMb: number;
  afterRssMb: number;
  upstreamPeakConcurrent: number;
  slowChunks: number;
  slowMs: number;
}

export interface Goal {
  /** Stable key (same goal across Node versions). */
  id: string;
  target: string;
  value: string;
  goal: string;
  /** null: not measured or not applicable (the value says why). */
  met: boolean | null;
  /** Information lines are shown but not counted. */
  kind: 'goal' | 'info';
}

/** One Node version: every server (toolgate, the proxies, Portkey) ran on it. */
export interface NodeRun {
  node: string;
  execPath: string;
  /** The Portkey version measured, when it ran. */
  portkeyVersion?: string;
  notes: string[];
  sanity: Record<string, string>;
  loadavgStart: number[];
  loadavgEnd?: number[];
  elapsedS?: number;
  /**
   * Share of all cores busy during this Node version's run (/proc/stat), and the part of it that was
   * not the bench (its own process, its servers and the upstream): other people's work.
   */
  machineBusyPct?: number;
  otherWorkPct?: number;
  phases: Partial<Record<'json' | 'paced' | 'burst' | 'json-moderate' | 'paced-moderate', Phase>>;
  manyStreams?: ManyStreamsResult[];
  goals?: Goal[];
}

export interface BenchResults {
  meta: Record<string, unknown>;
  runs: NodeRun[];
  /** The adversarial attacks at 200 KB: attack time and the worst /healthz meanwhile (bench/adversarial.ts). */
  adversarial?: AdversarialResults;
}
