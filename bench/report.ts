import { renderAdversarial } from './adversarial.js';
import { find } from './summarize.js';
import { MODERATE_SHARE, moderateRounds, TARGET_LABEL, type BenchResults, type Goal, type NodeRun, type Phase, type Target } from './types.js';

// Renders bench results as bench/results/latest.md: the performance goals for every Node version side
// by side, the peer table (32 connections) per Node version, then the details.

const fmt = (value: unknown, digits = 2): string => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  return Number.isInteger(value) && digits > 0 ? String(value) : value.toFixed(digits);
};

const signed = (value: unknown, digits = 2): string => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  return `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
};

const ratio = (value: unknown): string => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : '–');

const MODERATE_PCT = Math.round(MODERATE_SHARE * 100);

function label(target: Target, run?: NodeRun): string {
  if (target === 'portkey') return `Portkey ${run?.portkeyVersion ?? ''}`.trim();
  return TARGET_LABEL[target] ?? target;
}

function verdict(goal: Goal | undefined): string {
  if (!goal) return '–';
  const mark = goal.met === null ? '' : goal.met ? ' ✅ met' : ' ❌ **not met**';
  return `${goal.value}${mark}`;
}

/** One row per goal id, one column per Node version. */
export function renderGoals(runs: readonly NodeRun[]): string[] {
  const ids: Goal[] = [];
  for (const run of runs) for (const goal of run.goals ?? []) if (!ids.some((g) => g.id === goal.id)) ids.push(goal);
  if (ids.length === 0) return [];
  const out = [
    '## Goals',
    '',
    `| kind | measure | goal | ${runs.map((run) => run.node).join(' | ')} |`,
    `|---|---|---|${runs.map(() => '---').join('|')}|`,
  ];
  for (const kind of ['goal', 'info'] as const) {
    for (const goal of ids.filter((g) => g.kind === kind)) {
      out.push(`| ${kind} | ${goal.target} | ${goal.goal} | ${runs.map((run) => verdict(run.goals?.find((g) => g.id === goal.id))).join(' | ')} |`);
    }
  }
  const counted = runs.map((run) => {
    const goals = (run.goals ?? []).filter((g) => g.kind === 'goal' && g.met !== null);
    return `${run.node}: ${goals.filter((g) => g.met).length} of ${goals.length} goals met`;
  });
  out.push('', `${counted.join('; ')}. Info lines are not counted.`, '');
  return out;
}

/** The peer table: every target at 32 connections, JSON and both SSE upstreams, ×bare paired per round. */
export function renderPeerTable(run: NodeRun): string[] {
  const { json, burst, paced } = run.phases;
  const targets = (Object.keys(TARGET_LABEL) as Target[]).filter((t) => [json, burst, paced].some((p) => find(p?.summary, 32, t)));
  if (targets.length === 0) return [];
  const cell = (phase: Phase | undefined, target: Target): string[] => {
    const row = find(phase?.summary, 32, target);
    if (!row) return ['–', '–', '–'];
    const x = target === 'bare' ? '1.00' : ratio(row.ratioToBare);
    const cpu = row.requests === 0 ? '–' : target === 'direct' ? `(${fmt(row.cpuUsPerReq, 0)})` : fmt(row.cpuUsPerReq, 0);
    return [`${fmt(row.rps, 0)}${row.errors > 0 ? ` (${row.errors} errors)` : ''}`, x, cpu];
  };
  const out = [
    `### ${run.node}: 32 connections`,
    '',
    '| target | JSON req/s | ×bare | CPU µs/req | SSE burst streams/s | ×bare | CPU µs/stream | SSE paced streams/s | ×bare | CPU µs/stream |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const target of targets) out.push(`| ${target === 'toolgate' ? '**toolgate**' : label(target, run)} | ${[...cell(json, target), ...cell(burst, target), ...cell(paced, target)].join(' | ')} |`);
  out.push('');
  return out;
}

function detailTable(run: NodeRun, key: keyof NodeRun['phases'], title: string, sse: boolean): string[] {
  const phase = run.phases[key];
  if (!phase) return [];
  const out = [`#### ${title}`, ''];
  if (sse) {
    out.push(
      '| conc. | target | streams/s | ×bare | ×parsing | TTFB p50 ms | TTFB p99 ms | TTLB p50 ms | TTLB p99 ms | +TTFB p50 | +TTFB p99 | CPU µs/stream | errors |',
      '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
  } else {
    out.push('| conc. | target | req/s | ×bare | ×parsing | p50 ms | p99 ms | +p50 vs direct | +p99 vs direct | CPU µs/req | errors |', '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  }
  for (const row of phase.summary) {
    const direct = row.target === 'direct';
    const c = phase.rate ? `32 @ ${phase.rate}/s` : String(row.concurrency);
    // At a fixed start rate every target completes the same rate: no ratio to show.
    const x = phase.rate ? '–' : row.target === 'bare' ? '1' : ratio(row.ratioToBare);
    const parse = phase.rate ? '–' : row.target === 'parse' ? '1' : ratio(row.ratioToParse);
    // No completed answer: CPU "per request" would be CPU ÷ 1.
    const cpu = row.requests === 0 ? '–' : direct ? `(${fmt(row.cpuUsPerReq, 0)})` : fmt(row.cpuUsPerReq, 0);
    if (sse) {
      out.push(
        `| ${c} | ${label(row.target, run)} | ${fmt(row.rps, 0)} | ${x} | ${parse} | ${fmt(row.ttfbP50)} | ${fmt(row.ttfbP99)} | ${fmt(row.ttlbP50)} | ${fmt(row.ttlbP99)} | ${direct ? '–' : signed(row.added_ttfbP50)} | ${direct ? '–' : signed(row.added_ttfbP99)} | ${cpu} | ${row.errors} |`,
      );
    } else {
      out.push(
        `| ${c} | ${label(row.target, run)} | ${fmt(row.rps, 0)} | ${x} | ${parse} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${direct ? '–' : signed(row.added_p50)} | ${direct ? '–' : signed(row.added_p99)} | ${cpu} | ${row.errors} |`,
      );
    }
  }
  out.push('');
  return out;
}

function renderRunDetails(run: NodeRun): string[] {
  const out = [`## Details: ${run.node}`, ''];
  out.push(
    `Load average ${run.loadavgStart.join(' / ')} at start, ${(run.loadavgEnd ?? []).join(' / ')} at end; cores busy ${run.machineBusyPct ?? '?'}% over the run, ${run.otherWorkPct ?? '?'}% with work other than the bench; ${run.elapsedS ?? '?'} s. Binary: \`${run.execPath.replace(/^.*\/\.cache\//, '.cache/')}\`.`,
    '',
  );
  out.push(...detailTable(run, 'json', 'JSON (closed loop)', false));
  out.push(...detailTable(run, 'json-moderate', `JSON at moderate load (open loop, ${MODERATE_PCT}% of toolgate's capacity)`, false));
  out.push(...detailTable(run, 'burst', 'SSE, burst upstream (22 events in one write)', true));
  out.push(...detailTable(run, 'paced', 'SSE, paced upstream (one event per tick)', true));
  out.push(...detailTable(run, 'paced-moderate', `SSE paced at moderate load (open loop, ${MODERATE_PCT}% of toolgate's capacity)`, true));
  if (run.manyStreams?.length) {
    const first = run.manyStreams[0];
    out.push(
      `#### ${first.streams.toLocaleString('en-US')} concurrent streams`,
      '',
      `All opened at once, one connection each; the upstream streams ${first.slowChunks} events ${first.slowMs} ms apart. Fresh server process for each; RSS from /proc (peak = VmHWM).`,
      '',
      '| through | completed | errors | wall s | TTFB p50 / p99 ms | TTLB p50 / p99 ms | RSS idle MB | RSS peak MB | RSS after MB | upstream streams at once |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const row of run.manyStreams) {
      out.push(
        `| ${row.target === 'bare' ? 'bare passthrough' : 'toolgate'} | ${row.completed}/${row.streams} | ${row.errors + row.incomplete} | ${fmt(row.wallS)} | ${fmt(row.ttfbP50, 0)} / ${fmt(row.ttfbP99, 0)} | ${fmt(row.ttlbP50, 0)} / ${fmt(row.ttlbP99, 0)} | ${fmt(row.idleRssMb, 1)} | ${fmt(row.processPeakRssMb, 1)} | ${fmt(row.afterRssMb, 1)} | ${row.upstreamPeakConcurrent} |`,
      );
      if (row.firstError) out.push(`|  | first error: ${row.firstError} |||||||||`);
    }
    out.push('');
  }
  out.push('<details><summary>sanity checks</summary>', '', ...Object.entries(run.sanity).map(([k, v]) => `- ${k}: ${v}`), '', '</details>', '');
  return out;
}

export function renderMarkdown(results: BenchResults): string {
  const meta = results.meta;
  const out: string[] = [];
  const loadEnd = (meta.loadavgEnd as number[] | undefined) ?? [];
  out.push(`# toolgate benchmark — ${String(meta.date).slice(0, 16).replace('T', ' ')} UTC (${meta.mode})`, '');
  out.push(
    `Machine: ${meta.cpu}, ${meta.cores} cores (shared), ${meta.memoryGb} GB. Node versions: ${results.runs.map((run) => run.node).join(', ') || 'none'} (toolgate, both proxies and Portkey run on each; the load generator and the emulated upstream on ${meta.benchNode}). Gateway: ${meta.gateway}, config: ${meta.config}; commit ${meta.commit || '?'} (${meta.commitSubject ?? ''})${Number(meta.uncommittedSrcFiles) > 0 ? ` + ${meta.uncommittedSrcFiles} uncommitted src/ files` : ''}.`,
    `Peer: ${meta.portkey}. Every server is its own process on 127.0.0.1. ${meta.rounds} rounds × ${meta.durationS} s per JSON run (SSE ${Math.max(1, Number(meta.durationS) - 1)} s), targets alternated within each round; values are medians over rounds (the moderate-load phases: ${moderateRounds(Number(meta.rounds))} rounds); ×bare, ×parsing, ×Portkey and "+… vs direct" are paired per round, then the median.`,
    `Load: load average ${(meta.loadavgStart as number[]).join(' / ')} at start, ${loadEnd.join(' / ')} at end; cores busy with other work ${meta.machineBusyBeforePct}% before start, ${meta.machineBusyAfterPct}% after. Total ${meta.elapsedS} s.`,
    '',
  );
  const notes = (meta.notes as string[] | undefined) ?? [];
  if (notes.length) out.push(...notes.map((note) => `- ${note}`), '');
  out.push(...renderGoals(results.runs));
  const load = results.runs.map((run) => `${run.node}: cores ${run.machineBusyPct ?? '?'}% busy, **${run.otherWorkPct ?? '?'}% with other work** (load average ${run.loadavgStart[0]} → ${run.loadavgEnd?.[0] ?? '?'})`);
  if (load.length) out.push(`Machine during the runs — ${load.join('; ')}. Other work shares the 2 cores with every target alike (targets alternate), so ratios hold up better than absolute rates.`, '');
  for (const run of results.runs.filter((r) => r.notes.length > 0)) out.push(`Notes, ${run.node}:`, '', ...run.notes.map((note) => `- ${note}`), '');
  out.push(
    '## Every target at 32 connections',
    '',
    'Same request (7 messages, 2 parallel tool calls and their results, 3 tools) through every target. "bare": Fastify + undici relaying bytes; "JSON-parsing proxy": the same, parsing and re-serializing the request, the answer and every SSE event. Burst upstream: the 20 data events + usage + [DONE] (22 events) in one write; paced: one event per tick. CPU is the server process\'s own per completed request, from /proc (the upstream\'s for "direct"); errors are failed, non-2xx or incomplete answers summed over rounds.',
    '',
  );
  for (const run of results.runs) out.push(...renderPeerTable(run));
  for (const run of results.runs) out.push(...renderRunDetails(run));
  if (results.adversarial) out.push(renderAdversarial(results.adversarial).replace(/^### /, '## '));
  return `${out.join('\n')}\n`;
}
