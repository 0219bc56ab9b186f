import t from 'tap';
import { goalsFor, rejudged, THRESHOLDS } from '../../bench/goals.js';
import { renderGoals, renderPeerTable } from '../../bench/report.js';
import { summarize } from '../../bench/summarize.js';
import type { BenchResults, ManyStreamsResult, Mode, NodeRun, Phase, Row, Target } from '../../bench/types.js';

// The goal verdicts and the paired ratios they rest on, on recorded (synthetic) results:
// no load is generated here and nothing is timed.

function row(target: Target, rps: number, extra: Partial<Row> = {}, round = 0, concurrency = 32): Row {
  return { target, rps, concurrency, round, requests: Math.round(rps * 3), errors: 0, cpuUsPerReq: 1e6 / Math.max(1, rps), ...extra };
}

function phase(mode: Mode, rows: Row[], metrics: string[] = ['cpuUsPerReq']): Phase {
  return { mode, rows, summary: summarize(rows, metrics) };
}

function run(phases: NodeRun['phases'], extra: Partial<NodeRun> = {}): NodeRun {
  return { node: 'Node vX', execPath: '/usr/bin/node', notes: [], sanity: {}, loadavgStart: [0, 0, 0], phases, ...extra };
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
  t.equal(again.goals?.find((g) => g.id === 'json-bare')?.met, null, '×bare is information');
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

t.test('×parsing proxy: JSON needs 0.8×, streams 1.0×; ×bare is information only', async (t) => {
  const at = (mode: 'json' | 'burst' | 'paced', ratio: number) => goal(run({ [mode]: phase(mode, [row('bare', 2000), row('parse', 1000), row('toolgate', 1000 * ratio)]) }), `${mode}-parse`);
  t.equal(at('json', THRESHOLDS.parseJson)?.met, true);
  t.equal(at('json', 0.79)?.met, false);
  t.equal(at('json', 0.79)?.value, '0.79×');
  t.equal(at('burst', 0.99)?.met, false, 'streams need 1.0×');
  t.equal(at('paced', 1.0)?.met, true);
  t.equal(at('burst', 1.0)?.kind, 'goal');
  const bare = goal(run({ burst: phase('burst', [row('bare', 1000), row('toolgate', 500)]) }), 'burst-bare');
  t.equal(bare?.kind, 'info');
  t.equal(bare?.met, null, 'never judged');
  t.equal(bare?.value, '0.50×');
  t.equal(goal(run({}), 'burst-parse'), undefined, 'no phase, no line');
});

t.test('×Portkey needs 3×, and Portkey errors are shown beside the ratio', async (t) => {
  const r = run({ paced: phase('paced', [row('bare', 1000), row('toolgate', 300), row('portkey', 100, { errors: 7, requests: 300 })]) });
  const g = goal(r, 'paced-portkey');
  t.equal(g?.met, true, '3.0× is met');
  t.match(g?.value, /3\.00× \(7 errors over 307 requests\)/);
  const under = run({ paced: phase('paced', [row('toolgate', 290), row('portkey', 100)]) });
  t.equal(goal(under, 'paced-portkey')?.met, false, '2.9× is not');
  const missing = goal(run({ json: phase('json', [row('bare', 1000), row('toolgate', 500)]) }), 'json-portkey');
  t.equal(missing?.met, null);
  t.equal(missing?.value, 'Portkey not measured');
});

t.test('the report counts the goals only, not the information lines', async (t) => {
  const r = run({ json: phase('json', [row('bare', 1000), row('parse', 600), row('toolgate', 650)]) });
  r.goals = goalsFor(r);
  t.match(renderGoals([r]).join('\n'), /Node vX: 1 of 1 goals met/, 'json-parse counts (1.08×); ×bare and Portkey not measured are not judged');
});

t.test('added p99 at moderate load is judged against the bare passthrough\'s own + 1 ms', async (t) => {
  const moderate = (toolgateP99: number) => ({ ...phase('json', [row('direct', 1000, { p99: 1 }), row('bare', 1000, { p99: 3.5 }), row('toolgate', 1000, { p99: toolgateP99 })], ['p99']), rate: 1000 });
  const met = goal(run({ 'json-moderate': moderate(4.5) }), 'p99-json');
  t.equal(met?.met, true, '+3.5 ms is the bare +2.5 ms + 1 ms');
  t.equal(met?.value, '+3.500 ms (bare +2.500 ms)');
  t.equal(goal(run({ 'json-moderate': moderate(4.6) }), 'p99-json')?.met, false);
  const noBare = { ...phase('json', [row('direct', 1000, { p99: 1 }), row('toolgate', 1000, { p99: 2 })], ['p99']), rate: 1000 };
  t.equal(goal(run({ 'json-moderate': noBare }), 'p99-json')?.met, null, 'no bare row: not judged');
});

t.test('1,000 streams: peak RSS within 1.3× the bare passthrough\'s, no errors', async (t) => {
  const bare = { ...many(100), target: 'bare' as const };
  t.equal(goal(run({}, { manyStreams: [many(130), bare] }), 'many')?.met, true, '1.3× is met');
  t.equal(goal(run({}, { manyStreams: [many(130), bare] }), 'many')?.value, '130 MB = 1.30× / 0');
  t.equal(goal(run({}, { manyStreams: [many(131), bare] }), 'many')?.met, false);
  t.equal(goal(run({}, { manyStreams: [many(110, 1), bare] }), 'many')?.met, false, 'one error fails it');
  t.equal(goal(run({}, { manyStreams: [many(110)] }), 'many')?.met, null, 'no bare figure: not judged');
});

t.test('the added TTFB at one connection is information', async (t) => {
  const paced = phase('paced', [row('direct', 2000, { ttfbP50: 0.2 }, 0, 1), row('toolgate', 900, { ttfbP50: 0.9 }, 0, 1)], ['ttfbP50', 'cpuUsPerReq']);
  const ttfb = goal(run({ paced }), 'ttfb-c1');
  t.equal(ttfb?.value, '+0.700 ms');
  t.equal(ttfb?.kind, 'info');
});

t.test('a switch row (inspector on, contract off) is reported as its cost against the shipped config, never judged', async (t) => {
  const cases = [
    { name: 'toolgate-inspector', phase: 'json', rps: 450, cpu: 1100, value: '0.90× of shipped, +100 µs CPU per request', target: undefined },
    { name: 'toolgate-contract-off', phase: 'burst', rps: 520, cpu: 960, value: '1.04× of shipped, -40 µs CPU per stream', target: 'the tool contract off, SSE burst, 32 connections' },
  ] as const;
  for (const c of cases) {
    const rows = [row('bare', 1000), row('toolgate', 500, { cpuUsPerReq: 1000 }), row(c.name, c.rps, { cpuUsPerReq: c.cpu })];
    const id = `${c.name}-${c.phase}`;
    const g = goal(run({ [c.phase]: phase(c.phase, rows) }), id);
    t.equal(g?.kind, 'info', c.name);
    t.equal(g?.met, null, c.name);
    t.equal(g?.value, c.value);
    if (c.target !== undefined) t.equal(g?.target, c.target);
    t.equal(goal(run({ [c.phase]: phase(c.phase, rows.slice(0, 2)) }), id), undefined, `no ${c.name} row, no line`);
  }
});

t.test('the report puts Node versions side by side and shows the peer row with its errors', async (t) => {
  const a = run({ json: phase('json', [row('bare', 1000), row('parse', 1000), row('toolgate', 900), row('portkey', 100, { errors: 3 })]) }, { node: 'Node v20.1.0', portkeyVersion: '1.15.2' });
  const b = run({ json: phase('json', [row('bare', 1000), row('parse', 1000), row('toolgate', 500)]) }, { node: 'Node v24.2.0' });
  a.goals = goalsFor(a);
  b.goals = goalsFor(b);
  const goals = renderGoals([a, b]).join('\n');
  t.match(goals, /\| kind \| measure \| goal \| Node v20\.1\.0 \| Node v24\.2\.0 \|/);
  t.match(goals, /×JSON-parsing proxy \| ≥ 0\.8× \| 0\.90× ✅ met \| 0\.50× ❌ \*\*not met\*\* \|/);
  const table = renderPeerTable(a).join('\n');
  t.match(table, /\| Portkey 1\.15\.2 \| 100 \(3 errors\) \| 0\.10 \|/);
});

t.test('a toolgate that answers with errors meets no throughput goal, however fast', async (t) => {
  const rows = [row('bare', 1000), row('parse', 500), row('toolgate', 950, { errors: 12, requests: 2800 }), row('portkey', 100)];
  const r = run({ burst: phase('burst', rows) });
  const parse = goal(r, 'burst-parse');
  t.equal(parse?.met, false);
  t.equal(parse?.value, '1.90× (12 errors over 2812 requests)');
  t.equal(goal(r, 'burst-portkey')?.met, false, '9.5× Portkey, but broken streams');
});

t.test('the latency goal fails, not vanishes, when toolgate completed no answer; the info lines say why', async (t) => {
  const c1 = [row('direct', 2000, { ttfbP50: 0.2 }, 0, 1), row('toolgate', 0, { ttfbP50: NaN, errors: 61, requests: 0 }, 0, 1)];
  const r = run({ paced: phase('paced', c1, ['ttfbP50', 'cpuUsPerReq']) });
  const ttfb = goal(r, 'ttfb-c1');
  t.equal(ttfb?.value, 'no complete answer (61 errors over 61 requests)');
  t.equal(ttfb?.met, null, 'information');
  const moderate = { ...phase('paced', [row('direct', 100, { ttfbP99: 1 }), row('bare', 100, { ttfbP99: 2 }), row('toolgate', 0, { ttfbP99: NaN, errors: 9, requests: 0 })], ['ttfbP99']), rate: 100 };
  const p99 = goal(run({ 'paced-moderate': moderate }), 'p99-sse');
  t.equal(p99?.met, false);
  t.equal(p99?.value, 'no complete answer (9 errors over 9 requests)');
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
  t.equal(goal(r, 'p99-json')?.met, true, "toolgate's own +3 ms is within the bare +2.5 ms + 1 ms");
  t.equal(goal(run({}), 'floor-latency'), undefined, 'no bare row, no line');
});

t.test('the 1,000-stream goal is not met when fewer streams were open at once than it names', async (t) => {
  const r = run({}, { manyStreams: [{ ...many(110), upstreamPeakConcurrent: 742 }, { ...many(130), target: 'bare', upstreamPeakConcurrent: 1000 }] });
  t.equal(goal(r, 'many')?.value, '110 MB = 0.85× / 0; only 742 open at once');
  t.equal(goal(r, 'many')?.met, false, 'under 1.3× bare, but not 1,000 at once');
  t.equal(goal(r, 'floor-many')?.value, '130 MB / 0 (idle 80 MB)', 'the bare passthrough had them all open');
  t.equal(goal(run({}, { manyStreams: [many(110), { ...many(130), target: 'bare' }] }), 'many')?.met, true, 'all open at once, under the bound: met');
});
