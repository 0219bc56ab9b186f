import t from 'tap';
import { goalsFor, perEventUs, rejudged, THRESHOLDS } from '../../bench/goals.js';
import { renderGoals, renderPeerTable } from '../../bench/report.js';
import { summarize } from '../../bench/summarize.js';
import type { BenchResults, ManyStreamsResult, Mode, NodeRun, Phase, Row, Target } from '../../bench/types.js';

// Issue 17's goal verdicts and the paired ratios they rest on, on recorded (synthetic) results:
// no load is generated here and nothing is timed.

function row(target: Target, rps: number, extra: Partial<Row> = {}, round = 0, concurrency = 32): Row {
  return { target, rps, concurrency, round, requests: Math.round(rps * 3), errors: 0, cpuUsPerReq: 1e6 / Math.max(1, rps), ...extra };
}

function phase(mode: Mode, rows: Row[], metrics: string[] = ['cpuUsPerReq']): Phase {
  return { mode, rows, summary: summarize(rows, metrics) };
}

function run(phases: NodeRun['phases'], extra: Partial<NodeRun> = {}): NodeRun {
  return { node: 'Node vX', execPath: '/usr/bin/node', notes: [], sanity: {}, loadavgStart: [0, 0, 0], longExtra: 80, phases, ...extra };
}

const goal = (r: NodeRun, id: string) => goalsFor(r).find((g) => g.id === id);

const many = (peak: number, errors = 0): ManyStreamsResult => ({
  target: 'toolgate',
  streams: 1000,
  completed: 1000 - errors,
  errors,
  incomplete: 0,
  wallS: 2,
  ttfbP50: 1,
  ttfbP99: 2,
  ttlbP50: 2000,
  ttlbP99: 2100,
  idleRssMb: 80,
  peakRssMb: peak,
  processPeakRssMb: peak,
  afterRssMb: 90,
  upstreamPeakConcurrent: 1000,
  slowChunks: 20,
  slowMs: 100,
});

t.test('ratios are paired per round, then the median', async (t) => {
  // Round 0: toolgate 400 vs bare 1000 (0.4); round 1: 900 vs 1000 (0.9); round 2: 500 vs 1000 (0.5).
  // Median of the paired ratios 0.5; the ratio of the medians would be 500 / 1000 too, so make bare drift.
  const rows = [row('bare', 1000, {}, 0), row('toolgate', 400, {}, 0), row('bare', 2000, {}, 1), row('toolgate', 1800, {}, 1), row('bare', 1000, {}, 2), row('toolgate', 500, {}, 2)];
  const summary = summarize(rows, ['cpuUsPerReq']);
  const toolgate = summary.find((s) => s.target === 'toolgate')!;
  t.equal(toolgate.ratioToBare, 0.5, 'median of 0.4, 0.9, 0.5');
  t.equal(toolgate.rps, 500, 'median req/s');
  t.equal(summary.find((s) => s.target === 'bare')!.ratioToBare, undefined, 'bare has no ratio to itself');
});

t.test('a ratio goal shows its lowest and highest round beside the median', async (t) => {
  const rows = [row('bare', 1000, {}, 0), row('toolgate', 400, {}, 0), row('bare', 2000, {}, 1), row('toolgate', 1800, {}, 1), row('bare', 1000, {}, 2), row('toolgate', 500, {}, 2)];
  const toolgate = summarize(rows, ['cpuUsPerReq']).find((s) => s.target === 'toolgate')!;
  t.equal(toolgate.ratioToBareMin, 0.4);
  t.equal(toolgate.ratioToBareMax, 0.9);
  t.equal(goal(run({ json: phase('json', rows) }), 'json-bare')?.value, '0.50× (rounds 0.40–0.90×)');
  const once = summarize([row('bare', 1000), row('toolgate', 700)], ['cpuUsPerReq']).find((s) => s.target === 'toolgate')!;
  t.equal(once.ratioToBareMin, undefined, 'one round: no spread');
});

t.test('--render derives the summaries and the goals again from the recorded rows', async (t) => {
  const rows = [row('bare', 1000, {}, 0), row('toolgate', 850, {}, 0), row('bare', 1000, {}, 1), row('toolgate', 700, {}, 1)];
  // A recording whose summary and verdicts predate a report change: stale on purpose.
  const recorded = run({ json: { mode: 'json', rows, summary: [] } }, { goals: [] });
  const results: BenchResults = { meta: {}, runs: [recorded] };
  const again = rejudged(results).runs[0];
  t.equal(again.phases.json?.summary.find((s) => s.target === 'toolgate')?.ratioToBare, 0.775, 'median of 0.85 and 0.7');
  t.equal(again.goals?.find((g) => g.id === 'json-bare')?.met, false);
  t.match(again.goals?.find((g) => g.id === 'json-bare')?.value, /\(rounds 0\.70–0\.85×\)/);
});

t.test('errors and requests are summed; a peer that completed nothing gives no ratio', async (t) => {
  const rows = [row('portkey', 0, { errors: 40, requests: 0 }), row('toolgate', 600), row('bare', 1000)];
  const summary = summarize(rows, ['cpuUsPerReq']);
  const portkey = summary.find((s) => s.target === 'portkey')!;
  t.equal(portkey.errors, 40);
  t.equal(summary.find((s) => s.target === 'toolgate')!.ratioToPortkey, undefined, 'no division by zero');
  const g = goal(run({ json: phase('json', rows) }), 'json-portkey');
  t.equal(g?.met, null, 'not judged');
  t.match(g?.value, /Portkey completed none \(40 errors/);
});

t.test('×bare at 32 connections: 0.8 is met, just under is not', async (t) => {
  const at = (ratio: number) => goal(run({ burst: phase('burst', [row('bare', 1000), row('toolgate', 1000 * ratio)]) }), 'burst-bare');
  t.equal(at(THRESHOLDS.ratioToBare)?.met, true);
  t.equal(at(0.79)?.met, false);
  t.equal(at(0.79)?.value, '0.79×');
  t.equal(goal(run({}), 'burst-bare'), undefined, 'no phase, no line');
});

t.test('×Portkey needs 5×, and Portkey errors are shown beside the ratio', async (t) => {
  const r = run({ paced: phase('paced', [row('bare', 1000), row('toolgate', 500), row('portkey', 100, { errors: 7, requests: 300 })]) });
  const g = goal(r, 'paced-portkey');
  t.equal(g?.met, true, '5.0× is met');
  t.match(g?.value, /5\.00× \(7 errors over 307 requests\)/);
  const missing = goal(run({ json: phase('json', [row('bare', 1000), row('toolgate', 500)]) }), 'json-portkey');
  t.equal(missing?.met, null);
  t.equal(missing?.value, 'Portkey not measured');
});

t.test('the milestone against the JSON-parsing proxy is not counted as a goal', async (t) => {
  const r = run({ json: phase('json', [row('bare', 1000), row('parse', 600), row('toolgate', 650)]) });
  const g = goal(r, 'json-parse');
  t.equal(g?.kind, 'milestone');
  t.equal(g?.met, true);
  r.goals = goalsFor(r);
  t.match(renderGoals([r]).join('\n'), /Node vX: 0 of 1 goals met/, 'only json-bare counts (0.65×; Portkey not measured is not judged)');
});

t.test('latency and memory goals use the tightened thresholds (0.5 ms TTFB, 120 MB)', async (t) => {
  const paced = phase(
    'paced',
    [row('direct', 2000, { ttfbP50: 0.2 }, 0, 1), row('toolgate', 900, { ttfbP50: 0.9 }, 0, 1)],
    ['ttfbP50', 'cpuUsPerReq'],
  );
  const ttfb = goal(run({ paced }), 'ttfb-c1');
  t.equal(ttfb?.value, '+0.700 ms');
  t.equal(ttfb?.met, false, '0.7 ms added is over 0.5 ms (it met the old 1 ms goal)');
  t.equal(goal(run({}, { manyStreams: [many(130)] }), 'many')?.met, false, '130 MB is over 120 MB (it met the old 150 MB goal)');
  t.equal(goal(run({}, { manyStreams: [many(110)] }), 'many')?.met, true);
  t.equal(goal(run({}, { manyStreams: [many(110, 1)] }), 'many')?.met, false, 'one error fails it');
});

t.test('cost per unchanged event: CPU per stream difference over the extra events, toolgate vs bare', async (t) => {
  const short = phase('burst', [row('bare', 1000, { cpuUsPerReq: 200 }), row('toolgate', 500, { cpuUsPerReq: 1000 })]);
  const long = phase('burst-long', [row('bare', 900, { cpuUsPerReq: 240 }), row('toolgate', 300, { cpuUsPerReq: 1400 })]);
  t.equal(perEventUs(short.summary[1], long.summary[1], 80), 5, '(1400 − 1000) / 80');
  t.ok(Number.isNaN(perEventUs(undefined, long.summary[1], 80)));
  const g = goal(run({ burst: short, 'burst-long': long }), 'event-burst');
  t.equal(g?.value, '5.00 vs 0.50 µs (+4.50)');
  t.equal(g?.met, false, `more than ${THRESHOLDS.eventMarginUs} µs over bare`);
  const close = phase('burst-long', [row('bare', 900, { cpuUsPerReq: 240 }), row('toolgate', 300, { cpuUsPerReq: 1160 })]);
  t.equal(goal(run({ burst: short, 'burst-long': close }), 'event-burst')?.met, true, '2.0 vs 0.5 µs');
});

t.test('inspector and tracing rows are reported as their cost against the default, never judged', async (t) => {
  const rows = [row('bare', 1000), row('toolgate', 500, { cpuUsPerReq: 1000 }), row('toolgate-inspector', 450, { cpuUsPerReq: 1100 })];
  const g = goal(run({ json: phase('json', rows) }), 'toolgate-inspector-json');
  t.equal(g?.kind, 'info');
  t.equal(g?.met, null);
  t.equal(g?.value, '0.90× of default, +100 µs CPU per request');
  t.equal(goal(run({ json: phase('json', rows) }), 'toolgate-tracing-json'), undefined, 'no tracing row, no line');
});

t.test('the report puts Node versions side by side and shows the peer row with its errors', async (t) => {
  const a = run({ json: phase('json', [row('bare', 1000), row('toolgate', 900), row('portkey', 100, { errors: 3 })]) }, { node: 'Node v20.1.0', portkeyVersion: '1.15.2' });
  const b = run({ json: phase('json', [row('bare', 1000), row('toolgate', 500)]) }, { node: 'Node v24.2.0' });
  a.goals = goalsFor(a);
  b.goals = goalsFor(b);
  const goals = renderGoals([a, b]).join('\n');
  t.match(goals, /\| kind \| measure \| goal \| Node v20\.1\.0 \| Node v24\.2\.0 \|/);
  t.match(goals, /×bare passthrough \| ≥ 0\.8× \| 0\.90× ✅ met \| 0\.50× ❌ \*\*not met\*\* \|/);
  const table = renderPeerTable(a).join('\n');
  t.match(table, /\| Portkey 1\.15\.2 \| 100 \(3 errors\) \| 0\.10 \|/);
});

t.test('a toolgate that answers with errors meets no throughput goal, however fast', async (t) => {
  const rows = [row('bare', 1000), row('toolgate', 950, { errors: 12, requests: 2800 }), row('portkey', 100)];
  const r = run({ burst: phase('burst', rows) });
  const bare = goal(r, 'burst-bare');
  t.equal(bare?.met, false);
  t.equal(bare?.value, '0.95× (12 errors over 2812 requests)');
  t.equal(goal(r, 'burst-portkey')?.met, false, '9.5× Portkey, but broken streams');
});

t.test('latency and per-event goals fail, not vanish, when toolgate completed no answer', async (t) => {
  const c1 = [row('direct', 2000, { ttfbP50: 0.2 }, 0, 1), row('toolgate', 0, { ttfbP50: NaN, errors: 61, requests: 0 }, 0, 1)];
  const short = [row('bare', 1000, { cpuUsPerReq: 200 }), row('toolgate', 0, { cpuUsPerReq: 190_000, errors: 300, requests: 0 })];
  const long = [row('bare', 900, { cpuUsPerReq: 240 }), row('toolgate', 0, { cpuUsPerReq: 120_000, errors: 280, requests: 0 })];
  const r = run({ paced: phase('paced', [...c1, ...short], ['ttfbP50', 'cpuUsPerReq']), 'paced-long': phase('paced-long', long) });
  const ttfb = goal(r, 'ttfb-c1');
  t.equal(ttfb?.met, false);
  t.equal(ttfb?.value, 'no complete answer (61 errors over 61 requests)');
  const event = goal(r, 'event-paced');
  t.equal(event?.met, false, 'a negative difference from broken streams is not a pass');
  t.match(event?.value, /toolgate streams broken \(580 errors\)/);
});

t.test('a row with no completed answer shows no CPU per request', async (t) => {
  const r = run({ burst: phase('burst', [row('bare', 1000), row('toolgate', 0, { errors: 30, requests: 0, cpuUsPerReq: 1_140_000 })]) });
  const table = renderPeerTable(r).join('\n');
  t.match(table, /\| \*\*toolgate\*\* \| – \| – \| – \| 0 \(30 errors\) \| 0\.00 \| – \|/);
  t.notMatch(table, /1140000/);
});

t.test('the floors\' own figures are shown as info lines: parsing proxy ×bare, bare ×Portkey, bare RSS', async (t) => {
  const rows = [row('bare', 1000, {}, 0), row('parse', 600, {}, 0), row('portkey', 250, {}, 0), row('toolgate', 500, {}, 0), row('bare', 1200, {}, 1), row('parse', 840, {}, 1), row('portkey', 400, {}, 1), row('toolgate', 600, {}, 1)];
  const r = run({ paced: phase('paced', rows) }, { manyStreams: [many(150), { ...many(133.4), target: 'bare', idleRssMb: 78.5 }] });
  const floor = goal(r, 'floor-paced');
  t.equal(floor?.kind, 'info');
  t.equal(floor?.met, null, 'never judged');
  // Paired per round: parse 0.6 and 0.7 of bare (median 0.65); bare 4 and 3 × Portkey (median 3.5).
  t.equal(floor?.value, 'parsing proxy 0.65× of bare; bare 3.50× of Portkey');
  t.equal(goal(r, 'paced-portkey')?.value, '1.75× (rounds 1.50–2.00×)', "toolgate's own ratio (2 and 1.5) is unchanged by the floor lines");
  t.equal(goal(r, 'floor-many')?.value, '133.4 MB / 0 (idle 78.5 MB)');
  t.equal(goal(r, 'floor-json'), undefined, 'no phase, no line');
  t.equal(goalsFor(r).filter((g) => g.kind === 'goal' && g.id.startsWith('floor')).length, 0, 'floors are not goals');
});

t.test("the bare passthrough's own added latency is an info line beside the latency goals", async (t) => {
  const c1 = [row('direct', 2000, { ttfbP50: 0.2 }, 0, 1), row('bare', 1400, { ttfbP50: 0.55 }, 0, 1), row('toolgate', 900, { ttfbP50: 0.9 }, 0, 1)];
  const moderate = [row('direct', 1000, { p99: 1 }), row('bare', 1000, { p99: 3.5 }), row('toolgate', 1000, { p99: 4 })];
  const r = run({ paced: phase('paced', c1, ['ttfbP50', 'cpuUsPerReq']), 'json-moderate': { ...phase('json', moderate, ['p99']), rate: 1000 } });
  const floor = goal(r, 'floor-latency');
  t.equal(floor?.kind, 'info');
  t.equal(floor?.met, null, 'never judged');
  t.equal(floor?.value, 'TTFB p50 at 1 connection +0.350 ms; JSON p99 at moderate load +2.500 ms', 'no SSE moderate phase, no figure for it');
  t.equal(goal(r, 'p99-json')?.met, false, "toolgate's own goal is judged as before (+3 ms)");
  t.equal(goal(run({}), 'floor-latency'), undefined, 'no bare row, no line');
});

t.test('the 1,000-stream goal is not met when fewer streams were open at once than it names', async (t) => {
  const r = run({}, { manyStreams: [{ ...many(110), upstreamPeakConcurrent: 742 }, { ...many(130), target: 'bare', upstreamPeakConcurrent: 1000 }] });
  t.equal(goal(r, 'many')?.value, '110 MB / 0; only 742 open at once');
  t.equal(goal(r, 'many')?.met, false, 'under 120 MB, but not 1,000 at once');
  t.equal(goal(r, 'floor-many')?.value, '130 MB / 0 (idle 80 MB)', 'the bare passthrough had them all open');
  t.equal(goal(run({}, { manyStreams: [many(110)] }), 'many')?.met, true, 'all open at once, under the bound: met');
});
