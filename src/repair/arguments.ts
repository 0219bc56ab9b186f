import { RAW_ARGUMENTS_KEY } from '../toolcalls/arguments.js';
import { type RepairBudget, repairJsonBounded } from '../util/bounded-json.js';
import { isValidJson } from './json-check.js';
import type { FindingKind } from './kinds.js';
import type { Finding, RepairPass } from './types.js';
import { callName, clip, finding, hasCalls, isRecord, MessageList } from './util.js';

// Pass 5: `function.arguments` is a JSON string on the wire. Frameworks send objects, nothing,
// or JSON the model got wrong; upstreams that parse history (chat templates, Gemini) then fail.
// Objects are serialized, empty becomes {}, broken JSON is repaired (jsonrepair) when the result
// is an object, else wrapped as {"raw_arguments": "<original>"} (RAW_ARGUMENTS_KEY, as answers are) so no text is lost. Repair is
// bounded (bounded-json.ts): text over its size or depth limit, or past the request's tenant's
// budget (context.repairBudget), is wrapped without trying, and the finding says why.

type Fix = { value: string; kind: FindingKind; detail: string };


/** What a history's arguments become; null when they are a JSON text already (toolcalls/arguments.ts's fixArguments is the answer side). */
export function fixHistoryArguments(raw: unknown, budget: RepairBudget): Fix | null {
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { value: '{}', kind: 'arguments_empty', detail: 'empty arguments → {}' };
    if (isValidJson(raw)) return null;
    const outcome = repairJsonBounded(raw, budget);
    if ('repaired' in outcome && isRecord(parseOrUndefined(outcome.repaired))) {
      return { value: outcome.repaired, kind: 'arguments_repaired', detail: `invalid JSON ${clip(raw, 40)} repaired` };
    }
    const why = 'skipped' in outcome ? `not repaired (${outcome.reason})` : 'unrepairable';
    return { value: JSON.stringify({ [RAW_ARGUMENTS_KEY]: raw }), kind: 'arguments_wrapped', detail: `${why} arguments ${clip(raw, 40)} wrapped` };
  }
  if (raw === undefined || raw === null) return { value: '{}', kind: 'arguments_empty', detail: `${String(raw)} arguments → {}` };
  return { value: JSON.stringify(raw), kind: 'arguments_stringified', detail: `${Array.isArray(raw) ? 'array' : typeof raw} arguments → JSON string` };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export const argumentsPass: RepairPass = {
  name: 'arguments',
  run(request, context) {
    const messages = request.messages;
    const list = new MessageList(messages);
    const findings: Finding[] = [];
    messages.forEach((message, i) => {
      if (message.role !== 'assistant' || !hasCalls(message)) return;
      let calls: unknown[] | null = null;
      for (let j = 0; j < message.tool_calls.length; j++) {
        const call = message.tool_calls[j];
        if (!isRecord(call) || !isRecord(call.function)) continue;
        const fix = fixHistoryArguments(call.function.arguments, context.repairBudget);
        if (fix === null) continue;
        calls ??= message.tool_calls.slice();
        calls[j] = { ...call, function: { ...call.function, arguments: fix.value } };
        findings.push(finding(fix.kind, i, `${callName(call)}: ${fix.detail}`));
      }
      if (calls !== null) list.set(i, { ...message, tool_calls: calls });
    });
    return { request: list.result(request), findings };
  },
};
