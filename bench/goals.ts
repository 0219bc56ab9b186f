import { find, summarizePhase } from './summarize.js';
import type { BenchResults, Goal, ManyStreamsResult, NodeRun, Phase, Summary, Target } from './types.js';

// The performance goals, judged on one Node version's run (same run, same machine, ratios against
// floors measured beside toolgate, the shipped config). Pure: the report and the unit tests
// (test/bench/goals.test.ts) call it on recorded results.

export const THRESHOLDS = {
  /** toolgate's req/s at 32 connections ÷ the JSON-parsing proxy's, JSON upstream. */
  parseJson: 0.8,
  /** toolgate's streams/s at 32 connections ÷ the JSON-parsing proxy's, SSE (burst and paced). */
  parseStream: 1.0,
  /** ÷ Portkey's. */
  ratioToPortkey: 3,
  /** Added p99 at moderate load over the bare passthrough's own added p99, ms. */
  moderateP99OverBareMs: 1,
  /** Peak RSS with 1,000 concurrent streams ÷ the bare passthrough's. */
  manyRssToBare: 1.3,
} as const;

const x = (value: number | undefined): string => (value === undefined || !Number.isFinite(value) ? '–' : `${value.toFixed(2)}×`);
const ms = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(3)} ms`;

/** " (rounds 0.74–0.86×)": the lowest and highest paired round behind a median ratio, when there were several. */
function roundsNote(row: Summary | undefined, key: string): string {
  const low = Number(row?.[`${key}Min`]);
  const high = Number(row?.[`${key}Max`]);
  return Number.isFinite(low) && Number.isFinite(high) ? ` (rounds ${low.toFixed(2)}–${x(high)})` : '';
}

function c32(phase: Phase | undefined, target: Target): Summary | undefined {
  return find(phase?.summary, 32, target);
}

function errorNote(row: Summary | undefined): string {
  return row && row.errors > 0 ? ` (${row.errors} errors over ${row.requests + row.errors} requests)` : '';
}

/** Said when fewer upstream streams were open at once than the phase opened (the first ended before the last started). */
function openNote(row: ManyStreamsResult): string {
  return row.upstreamPeakConcurrent < row.streams ? `; only ${row.upstreamPeakConcurrent} open at once` : '';
}

const MODE_LABEL = { json: 'JSON req/s', burst: 'SSE streams/s, burst upstream (22 events in one write)', paced: 'SSE streams/s, paced upstream (one event per tick)' } as const;

/**
 * What the two floors reach themselves in the same run (info): the JSON-parsing proxy ×bare, and
 * the bare passthrough ×Portkey, its own added latency and 1,000-stream peak RSS. A goal beyond a floor's own
 * figure is beyond any gateway that does at least what that floor does, on this machine.
 */
function floorLines(run: NodeRun): Goal[] {
  const out: Goal[] = [];
  for (const mode of ['json', 'burst', 'paced'] as const) {
    const bare = c32(run.phases[mode], 'bare');
    const parse = c32(run.phases[mode], 'parse');
    const values: string[] = [];
    if (parse?.ratioToBare !== undefined) values.push(`parsing proxy ${x(parse.ratioToBare)} of bare`);
    if (bare?.ratioToPortkey !== undefined) values.push(`bare ${x(bare.ratioToPortkey)} of Portkey`);
    if (values.length === 0) continue;
    out.push({ id: `floor-${mode}`, target: `the floors themselves, ${MODE_LABEL[mode]}, 32 connections`, value: values.join('; '), goal: '–', met: null, kind: 'info' });
  }
  // The latency goals' floor: what the bare passthrough itself adds over the upstream direct.
  const latencies: string[] = [];
  const added = (row: Summary | undefined, metric: string, what: string): void => {
    const value = Number(row?.[`added_${metric}`]);
    if (row && Number.isFinite(value)) latencies.push(`${what} ${ms(value)}`);
  };
  added(find(run.phases.paced?.summary, 1, 'bare'), 'ttfbP50', 'TTFB p50 at 1 connection');
  added(c32(run.phases['json-moderate'], 'bare'), 'p99', 'JSON p99 at moderate load');
  added(c32(run.phases['paced-moderate'], 'bare'), 'ttfbP99', 'SSE TTFB p99 at moderate load');
  if (latencies.length > 0) {
    out.push({ id: 'floor-latency', target: 'the bare passthrough itself: added latency vs the upstream direct', value: latencies.join('; '), goal: '–', met: null, kind: 'info' });
  }
  const bare = run.manyStreams?.find((row) => row.target === 'bare');
  if (bare) {
    const value = `${bare.processPeakRssMb} MB / ${bare.errors + bare.incomplete} (idle ${bare.idleRssMb} MB)${openNote(bare)}`;
    out.push({ id: 'floor-many', target: `the bare passthrough itself: ${bare.streams.toLocaleString('en-US')} concurrent streams, peak RSS / errors`, value, goal: '–', met: null, kind: 'info' });
  }
  return out;
}

export function goalsFor(run: NodeRun): Goal[] {
  const out: Goal[] = [];
  const phases = run.phases;
  const ratioGoal = (id: string, mode: keyof typeof MODE_LABEL, key: 'ratioToBare' | 'ratioToParse' | 'ratioToPortkey', threshold: number | undefined): void => {
    const row = c32(phases[mode], 'toolgate');
    const kind: Goal['kind'] = threshold === undefined ? 'info' : 'goal';
    const goal = threshold === undefined ? '–' : `≥ ${threshold.toFixed(1)}×`;
    const peerName = key === 'ratioToBare' ? 'bare passthrough' : key === 'ratioToParse' ? 'JSON-parsing proxy' : 'Portkey';
    const target = `${MODE_LABEL[mode]}, 32 connections: ×${peerName}`;
    if (!phases[mode]) return;
    const value = row?.[key];
    if (key === 'ratioToPortkey') {
      const peer = c32(phases[mode], 'portkey');
      if (!peer) return void out.push({ id, target, value: 'Portkey not measured', goal, met: null, kind });
      if (value === undefined || !Number.isFinite(value)) {
        return void out.push({ id, target, value: `Portkey completed none${errorNote(peer)}`, goal, met: null, kind });
      }
    }
    const ok = value !== undefined && Number.isFinite(value);
    // Broken answers (errors, incomplete streams) never meet a throughput goal, however fast.
    const clean = (row?.errors ?? 0) === 0;
    const peerErrors = key === 'ratioToPortkey' ? errorNote(c32(phases[mode], 'portkey')) + (clean ? '' : '; toolgate') : '';
    const shown = ok ? `${x(value)}${roundsNote(row, key)}${peerErrors}${errorNote(row)}` : '–';
    out.push({ id, target, value: shown, goal, met: ok && threshold !== undefined ? value >= threshold && clean : null, kind });
  };
  ratioGoal('json-parse', 'json', 'ratioToParse', THRESHOLDS.parseJson);
  for (const mode of ['burst', 'paced'] as const) ratioGoal(`${mode}-parse`, mode, 'ratioToParse', THRESHOLDS.parseStream);
  for (const mode of ['json', 'burst', 'paced'] as const) ratioGoal(`${mode}-portkey`, mode, 'ratioToPortkey', THRESHOLDS.ratioToPortkey);

  // Added p99 at moderate load against the bare passthrough's own; a toolgate row without complete answers fails it.
  const latencyGoal = (id: string, target: string, phase: Phase | undefined, metric: string): void => {
    const row = c32(phase, 'toolgate');
    if (!row) return;
    const added = Number(row[`added_${metric}`]);
    const bare = Number(c32(phase, 'bare')?.[`added_${metric}`]);
    const goal = `≤ bare + ${THRESHOLDS.moderateP99OverBareMs} ms`;
    if (!Number.isFinite(added) || row.errors > 0) {
      out.push({ id, target, value: Number.isFinite(added) ? `${ms(added)}${errorNote(row)}` : `no complete answer${errorNote(row)}`, goal, met: false, kind: 'goal' });
      return;
    }
    const value = Number.isFinite(bare) ? `${ms(added)} (bare ${ms(bare)})` : `${ms(added)} (bare not measured)`;
    out.push({ id, target, value, goal, met: Number.isFinite(bare) ? added <= bare + THRESHOLDS.moderateP99OverBareMs : null, kind: 'goal' });
  };
  latencyGoal('p99-json', `added p99, JSON, 32 connections at ${phases['json-moderate']?.rate} req/s (moderate)`, phases['json-moderate'], 'p99');
  latencyGoal('p99-sse', `added TTFB p99, SSE paced, 32 connections at ${phases['paced-moderate']?.rate} streams/s (moderate)`, phases['paced-moderate'], 'ttfbP99');
  const many = run.manyStreams?.find((row) => row.target === 'toolgate');
  if (many) {
    const errors = many.errors + many.incomplete;
    const bare = run.manyStreams?.find((row) => row.target === 'bare');
    const ratio = bare ? many.processPeakRssMb / bare.processPeakRssMb : NaN;
    // A peak with fewer streams open at once than asked for measured less than the goal names.
    const allOpen = many.upstreamPeakConcurrent >= many.streams;
    out.push({
      id: 'many',
      target: `${many.streams.toLocaleString('en-US')} concurrent streams: peak RSS ×bare passthrough's / errors`,
      value: `${many.processPeakRssMb} MB = ${x(ratio)} / ${errors}${openNote(many)}`,
      goal: `≤ ${THRESHOLDS.manyRssToBare}×, 0 errors`,
      met: Number.isFinite(ratio) ? ratio <= THRESHOLDS.manyRssToBare && errors === 0 && many.completed === many.streams && allOpen : null,
      kind: 'goal',
    });
  }
  // Information: ×bare and the added TTFB at one connection.
  for (const mode of ['json', 'burst', 'paced'] as const) ratioGoal(`${mode}-bare`, mode, 'ratioToBare', undefined);
  const c1 = find(phases.paced?.summary, 1, 'toolgate');
  if (c1) {
    const added = Number(c1.added_ttfbP50);
    const value = Number.isFinite(added) && c1.errors === 0 ? ms(added) : `no complete answer${errorNote(c1)}`;
    out.push({ id: 'ttfb-c1', target: 'added time to first byte (p50), SSE paced, 1 connection', value, goal: '–', met: null, kind: 'info' });
  }
  out.push(...floorLines(run));
  // One switch flipped beside the shipped config: the inspector on (what turning it on costs), the
  // tool contract off (what the shipped contract costs: checking answers, holding streamed calls).
  const switches = [['toolgate-inspector', 'the inspector on'], ['toolgate-contract-off', 'the tool contract off']] as const;
  for (const [target, what] of switches) for (const mode of ['json', 'burst'] as const) {
    const row = c32(phases[mode], target);
    const base = c32(phases[mode], 'toolgate');
    if (!row || !base) continue;
    const cpu = Number(row.cpuUsPerReq) - Number(base.cpuUsPerReq);
    const value = `${x(row.ratioToToolgate)} of shipped, ${cpu >= 0 ? '+' : ''}${Math.round(cpu)} µs CPU per ${mode === 'json' ? 'request' : 'stream'}${errorNote(row)}`;
    out.push({ id: `${target}-${mode}`, target: `${what}, ${mode === 'json' ? 'JSON' : 'SSE burst'}, 32 connections`, value, goal: '–', met: null, kind: 'info' });
  }
  return out;
}

/**
 * `results` with every phase's summaries derived again from its recorded rows and the goals judged
 * again on them (`--render`): a change to the summaries or the goals applies to runs recorded before it.
 */
export function rejudged(results: BenchResults): BenchResults {
  for (const run of results.runs) {
    for (const phase of Object.values(run.phases)) if (phase && phase.rows.length > 0) phase.summary = summarizePhase(phase.rows, phase.mode);
    run.goals = goalsFor(run);
  }
  return results;
}
