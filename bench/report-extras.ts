import { profileMarkdown } from './cpuprofile.js';
import { renderAdversarial } from './adversarial.js';
import type { BenchResults } from './types.js';

// The sections of bench/results/latest.md that do not depend on the Node version: in-process
// micro-benchmarks, the adversarial inputs, CPU profiles.

const fmt = (value: unknown, digits = 2): string => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  return Number.isInteger(value) && digits > 0 ? String(value) : value.toFixed(digits);
};

export function renderExtras(results: BenchResults): string[] {
  const out: string[] = [];
  if (results.micro) {
    out.push(
      '## Repair: 500-message history, 100 tool calls',
      '',
      '`repairRequest` with its context built as `src/pipeline/repair-step.ts` does (declared tools, empty ledger snapshot, default options). "+ ledger query" adds `ledgerQueryFor` (call ids and prefix fingerprints the step computes before the ledger lookup) and `declaredToolsOf`, i.e. the step minus the ledger I/O.',
      '',
      '| history | messages | tool calls | findings | repairRequest µs | + ledger query µs |',
      '|---|---:|---:|---:|---:|---:|',
    );
    for (const row of results.micro.repair) {
      const kinds = Object.entries(row.findingKinds)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ');
      out.push(`| ${row.variant}${kinds ? ` (${kinds})` : ''} | ${row.messages} | ${row.toolCalls} | ${row.findings} | ${fmt(row.repairUs.medianUs, 0)} | ${fmt(row.stepUs.medianUs, 0)} |`);
    }
    out.push(
      '',
      '## Text-call parser: 20 KB answer',
      '',
      '8 calls spread through prose ("prose": no call at all, with brackets and braces that make the formats look). Whole text: `parseToolCallsFromText`; streamed: `ToolCallStreamExtractor` fed token-sized deltas (4 characters).',
      '',
      '| format | bytes | calls found (whole / streamed) | whole text MB/s | streamed MB/s |',
      '|---|---:|---:|---:|---:|',
    );
    for (const row of results.micro.parser) {
      out.push(`| ${row.format} | ${row.bytes} | ${row.calls} / ${row.streamCalls} | ${fmt(row.wholeMBs, 1)} | ${fmt(row.streamMBs, 1)} |`);
    }
    out.push('');
  }

  if (results.adversarial) out.push(renderAdversarial(results.adversarial).replace(/^### /, '## '));

  if (results.profiles?.length) {
    out.push('## CPU profiles (node --cpu-prof on the server process)', '');
    const tg = results.profiles.find((p) => p.scenario.startsWith('toolgate, JSON'))?.summary;
    const bare = results.profiles.find((p) => p.scenario.startsWith('bare proxy, JSON'))?.summary;
    if (tg?.requests && bare?.requests) {
      const perReq = (s: typeof tg, group: string): number => ((s.byGroup.find((g) => g.group === group)?.ms ?? 0) * 1000) / (s.requests ?? 1);
      const groups = [...new Set([...tg.byGroup.map((g) => g.group), ...bare.byGroup.map((g) => g.group)])]
        .map((group) => ({ group, tg: perReq(tg, group), bare: perReq(bare, group) }))
        .sort((a, b) => b.tg - a.tg);
      out.push(
        'CPU per request in the measured window, by where it is spent (JSON, concurrency 32): what toolgate costs on top of the bare proxy.',
        '',
        '| group | toolgate µs/req | bare proxy µs/req |',
        '|---|---:|---:|',
        `| **total** | **${fmt(tg.cpuUsPerRequest, 0)}** | **${fmt(bare.cpuUsPerRequest, 0)}** |`,
        ...groups.filter((g) => g.tg >= 2 || g.bare >= 2).map((g) => `| ${g.group} | ${fmt(g.tg, 0)} | ${fmt(g.bare, 0)} |`),
        '',
      );
    }
    for (const profile of results.profiles) out.push(profileMarkdown(profile.scenario, profile.summary, 15));
  }
  return out;
}
