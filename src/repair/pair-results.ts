import type { RawChatMessage } from '../api/chat-types.js';
import type { Finding, RepairPass } from './types.js';
import { callId, callName, contentText, finding, hasCalls, resultId } from './util.js';

// Pass 4: every assistant message with tool_calls must be followed directly by one tool message
// per call (OpenAI: "An assistant message with 'tool_calls' must be followed by tool messages
// responding to each 'tool_call_id'"). Results that come late (after a user message), early
// (before their call) or twice are moved next to their call; a call with no result gets a tool
// message saying so (options.missingResultText) instead of being dropped.

/** True when every call is answered right after its message and every result sits in its block. */
function wellPaired(messages: readonly RawChatMessage[]): boolean {
  // Arrays, not Sets: a message has a handful of calls, and this runs on every request.
  let open: string[] | null = null;
  let left = 0;
  for (const message of messages) {
    if (message.role === 'tool') {
      const at: number = open === null ? -1 : open.indexOf(resultId(message));
      if (open === null || at < 0) return false;
      open[at] = '\u0000answered';
      left--;
      continue;
    }
    if (left > 0) return false;
    open = message.role === 'assistant' && hasCalls(message) ? message.tool_calls.map(callId) : null;
    left = open === null ? 0 : open.length;
  }
  return left === 0;
}

function merged(first: RawChatMessage, extra: RawChatMessage): RawChatMessage {
  return { ...first, content: `${contentText(first.content)}\n\n${contentText(extra.content)}` };
}

export const pairResultsPass: RepairPass = {
  name: 'pair-results',
  run(request, context) {
    const messages = request.messages;
    if (wellPaired(messages)) return { request, findings: [] };

    const owner = new Map<string, number>();
    messages.forEach((message, a) => {
      if (message.role !== 'assistant' || !hasCalls(message)) return;
      for (const call of message.tool_calls) if (!owner.has(callId(call))) owner.set(callId(call), a);
    });
    const resultsOf = new Map<string, number[]>();
    messages.forEach((message, t) => {
      const id = resultId(message);
      if (message.role !== 'tool' || !owner.has(id)) return;
      const list = resultsOf.get(id) ?? [];
      list.push(t);
      resultsOf.set(id, list);
    });

    const out: RawChatMessage[] = [];
    const findings: Finding[] = [];
    messages.forEach((message, a) => {
      if (message.role === 'tool' && owner.has(resultId(message))) return; // emitted with its call
      out.push(message);
      if (message.role !== 'assistant' || !hasCalls(message)) return;

      let blockEnd = a + 1;
      while (blockEnd < messages.length && messages[blockEnd].role === 'tool' && owner.get(resultId(messages[blockEnd])) === a) blockEnd++;
      const ids = [...new Set(message.tool_calls.map(callId))].filter((id) => owner.get(id) === a);
      const indexes = ids.flatMap((id) => resultsOf.get(id) ?? []).sort((x, y) => x - y);
      const emitted = new Map<string, number>();
      for (const t of indexes) {
        const result = messages[t];
        const id = resultId(result);
        const at = emitted.get(id);
        if (at !== undefined) {
          out[at] = merged(out[at], result);
          findings.push(finding('duplicate_tool_result', t, `second result for ${id} merged into the first`));
          continue;
        }
        emitted.set(id, out.length);
        out.push(result);
        if (t < a + 1 || t >= blockEnd) {
          const where = t < a ? 'before its call' : 'after other messages';
          findings.push(finding('moved_tool_result', t, `result for ${id} was ${where} (index ${t}): moved to follow message ${a}`));
        }
      }
      for (const call of message.tool_calls) {
        const id = callId(call);
        if (emitted.has(id) || owner.get(id) !== a) continue;
        emitted.set(id, out.length);
        out.push({ role: 'tool', tool_call_id: id, content: context.options.missingResultText });
        findings.push(finding('missing_tool_result', a, `call ${callName(call)}(${id}) had no result: a tool message saying so was added`));
      }
    });
    return { request: { ...request, messages: out }, findings };
  },
};
