// The repair catalogue of docs/repairs.md: one real before/after example per finding kind, produced by
// running the actual passes, so the docs cannot drift from the code. `npm run docs:catalogue` rewrites
// the table in docs/repairs.md; `npx tsx scripts/repair-catalogue.ts` prints it.
import { readFileSync, writeFileSync } from 'node:fs';
import type { ChatRequest } from '../src/api/chat-types.js';
import { allPrefixFingerprints } from '../src/ledger/fingerprint.js';
import { RepairBudget } from '../src/util/bounded-json.js';
import { DEFAULT_REPAIR_OPTIONS, FINDING_KINDS, declaredToolsOf, repairRequest } from '../src/repair/index.js';
import type { LedgerEntry } from '../src/ledger/types.js';

const tool = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const call = (id: string, args = '{"city":"Rome"}') => ({ id, type: 'function' as const, function: { name: 'get_weather', arguments: args } });
const user = (content: string) => ({ role: 'user' as const, content });
const result = (id: string, content = '{"temp_c":21}') => ({ role: 'tool' as const, tool_call_id: id, content });

export const EXAMPLES: Record<string, { messages: any[]; extra?: Record<string, unknown>; ledger?: boolean; restoreReasoning?: boolean; options?: Partial<typeof DEFAULT_REPAIR_OPTIONS> }> = {
  tool_definition_converted: { messages: [user('hi')], extra: { tools: [{ type: 'ai_function', name: 'get_weather', description: 'Weather', input_model: { type: 'object', properties: { city: { type: 'string' } } } }] } },
  tool_choice_converted: { messages: [user('hi')], extra: { tools: [tool], function_call: { name: 'get_weather' } } },
  empty_tools_removed: { messages: [user('hi')], extra: { tools: [], tool_choice: 'auto' } },
  legacy_function_call: { messages: [user('hi'), { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Rome"}' } }, { role: 'function', name: 'get_weather', content: '{"temp_c":21}' }] },
  content_null: { messages: [{ role: 'system', content: null }, user('hi')] },
  content_stringified: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1')] }, { role: 'tool', tool_call_id: 'call_1', content: { temp_c: 21 } }] },
  content_parts_cleaned: { messages: [user('hi'), { role: 'assistant', content: [{ type: 'text', text: 'Checking.', annotations: [], role: 'assistant' }], tool_calls: [call('call_1')] }, result('call_1')] },
  response_fields_removed: { messages: [user('hi'), { role: 'assistant', content: 'Sunny.', refusal: 'No.', parsed: { city: 'Rome' } }] },
  tool_call_shape: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{}' } }] }, result('call_1')] },
  restored_tool_calls: { messages: [user('Weather in Rome?'), { role: 'assistant', content: '' }, { role: 'tool', content: '{"temp_c":21}' }], ledger: true },
  restored_assistant_message: { messages: [user('Weather in Rome?'), result('call_ledger1')], ledger: true },
  reasoning_restored: { messages: [user('Weather in Rome?'), { role: 'assistant', content: null, tool_calls: [call('call_ledger1')] }, result('call_ledger1')], ledger: true, restoreReasoning: true },
  ledger_mismatch: { messages: [user('Weather in Rome?'), { role: 'assistant', content: 'Different text' }, { role: 'tool', tool_call_id: 'call_other', content: 'x' }], ledger: true },
  duplicate_call_id: { messages: [user('a'), { role: 'assistant', content: null, tool_calls: [call('call_0')] }, result('call_0'), user('b'), { role: 'assistant', content: null, tool_calls: [call('call_0', '{"city":"Oslo"}')] }, result('call_0', '{"temp_c":3}')] },
  missing_call_id: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }, result('call_9')] },
  missing_tool_call_id: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1')] }, { role: 'tool', name: 'get_weather', content: '{"temp_c":21}' }] },
  ambiguous_tool_result: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2', '{"city":"Oslo"}')] }, { role: 'tool', content: 'only one result' }] },
  orphan_tool_result: { messages: [user('hi'), { role: 'tool', tool_call_id: 'call_zz', name: 'lookup', content: 'orphan text' }] },
  moved_tool_result: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1')] }, user('still there?'), result('call_1')] },
  missing_tool_result: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2', '{"city":"Oslo"}')] }, result('call_1')] },
  duplicate_tool_result: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1')] }, result('call_1', 'part 1'), result('call_1', 'part 2')] },
  arguments_stringified: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [{ ...call('call_1'), function: { name: 'get_weather', arguments: { city: 'Rome' } } }] }, result('call_1')] },
  arguments_repaired: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1', "{city: 'Rome',}")] }, result('call_1')] },
  arguments_wrapped: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1', 'Rome please')] }, result('call_1')] },
  arguments_empty: { messages: [user('hi'), { role: 'assistant', content: null, tool_calls: [call('call_1', '')] }, result('call_1')] },
  corrupted_content: { messages: [user('hi'), { role: 'assistant', content: '<agent_framework._types.ChatMessage object at 0x10c394210>' }, user('again')], options: { corruptedContent: 'drop' } },
  tool_loop: { messages: [user('hi'), ...[1, 2, 3].flatMap((n) => [{ role: 'assistant', content: null, tool_calls: [call(`call_${n}`)] }, result(`call_${n}`)])], options: { loopNote: true } },
};

function ledgerFor(messages: any[]): { byCallId: Map<string, LedgerEntry>; byPrefix: Map<string, LedgerEntry> } {
  const prefix = [messages[0]];
  const entry: LedgerEntry = {
    message: { role: 'assistant', content: null, reasoning_content: 'The user wants the weather in Rome: call get_weather.', tool_calls: [call('call_ledger1')] },
    prefixFingerprint: allPrefixFingerprints(prefix as any)[1],
    provider: 'openai',
    model: 'gpt-4o-mini',
    createdAt: Date.now(),
  };
  return { byCallId: new Map([['call_ledger1', entry]]), byPrefix: new Map([[entry.prefixFingerprint, entry]]) };
}

export function runExample(kind: string) {
  const example = EXAMPLES[kind];
  const request = { model: 'm', messages: example.messages, ...(example.extra ?? {}) } as ChatRequest;
  let declaredTools;
  try {
    declaredTools = declaredToolsOf(request);
  } catch {
    declaredTools = new Map();
  }
  const options = { ...DEFAULT_REPAIR_OPTIONS, ...(example.options ?? {}) };
  const ledger = example.ledger ? ledgerFor(example.messages) : { byCallId: new Map(), byPrefix: new Map() };
  const before = structuredClone(request);
  const repaired = repairRequest(request, { declaredTools, ledger, options, repairBudget: new RepairBudget(), restoreReasoning: example.restoreReasoning === true });
  return { before, after: repaired.request, findings: repaired.findings, inputUntouched: JSON.stringify(before) === JSON.stringify(request) };
}

/** Only what changed matters in a catalogue row: tools/tool_choice when they changed, messages otherwise. */
function view(request: ChatRequest, other: ChatRequest): string {
  const shown: Record<string, unknown> = {};
  for (const key of ['tools', 'functions', 'function_call', 'tool_choice'] as const) {
    if (JSON.stringify(request[key]) !== JSON.stringify(other[key]) && request[key] !== undefined) shown[key] = request[key];
  }
  if (JSON.stringify(request.messages) !== JSON.stringify(other.messages) || Object.keys(shown).length === 0) shown.messages = request.messages;
  return `\`${JSON.stringify(shown).replace(/\|/g, '\\|')}\``;
}

/** The catalogue table of docs/repairs.md: one row per finding kind, before → after from the real passes. */
export function catalogueTable(): string {
  const lines = ['| kind | what | before | after |', '|---|---|---|---|'];
  for (const kind of Object.keys(EXAMPLES)) {
    const what = FINDING_KINDS[kind as keyof typeof FINDING_KINDS];
    const { before, after, findings } = runExample(kind);
    if (!findings.some((f) => f.kind === kind)) throw new Error(`example for ${kind} did not produce it: ${JSON.stringify(findings)}`);
    lines.push(`| \`${kind}\` | ${what.replace(/\|/g, '\\|')} | ${view(before, after)} | ${view(after, before)} |`);
  }
  return lines.join('\n');
}

export const CATALOGUE_PAGE = new URL('../docs/repairs.md', import.meta.url);
const START = /<!-- repair-catalogue:start[^>]*-->\n/;
const END = '<!-- repair-catalogue:end -->';

/** The table currently written in docs/repairs.md, between its markers. */
export function documentedTable(page: string): string {
  const start = START.exec(page);
  const end = page.indexOf(END);
  if (!start || end < 0) throw new Error('docs/repairs.md has no repair-catalogue markers');
  return page.slice(start.index + start[0].length, end).trimEnd();
}

if (process.argv[1]?.endsWith('repair-catalogue.ts')) {
  const table = catalogueTable();
  if (process.argv.includes('--write')) {
    const page = readFileSync(CATALOGUE_PAGE, 'utf8');
    writeFileSync(CATALOGUE_PAGE, page.replace(documentedTable(page), table));
    console.log('docs/repairs.md: catalogue updated');
  } else {
    console.log(table);
  }
}
