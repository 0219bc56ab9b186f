import type { RawChatMessage, ToolCall } from '../api/chat-types.js';
import { allPrefixFingerprints } from '../ledger/fingerprint.js';
import type { LedgerEntry } from '../ledger/types.js';
import type { Finding, RepairPass } from './types.js';
import { allCallIds, callId, callName, clip, contentText, finding, hasCalls, nonEmptyString, resultId } from './util.js';

// Pass 1: clients that serialize only role + content (a Hugging Face client did) send the
// assistant message back without its tool_calls. The ledger remembers what the gateway returned,
// by call id (when the results kept their ids) and by a fingerprint of the conversation before
// that assistant message. Restored calls are exact: same ids, names, arguments. The results get
// their ids afterwards (result-ids pass), by name or position.
//
// A prefix match alone could come from another conversation with the same opening, so a candidate
// must fit: none of its calls already in the history, result ids/names it does not know are
// refused, and non-empty assistant text must be the same.

const norm = (text: string): string => text.replace(/\s+/g, ' ').trim();

function cloneCalls(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((call) => ({ ...call, function: { ...call.function } }));
}

/** Why the entry cannot be these calls, or null when it fits. */
function misfit(entry: LedgerEntry, assistant: RawChatMessage | null, block: readonly RawChatMessage[], unknown: string[], known: ReadonlySet<string>): string | null {
  const calls = entry.message.tool_calls ?? [];
  if (calls.length === 0) return 'the ledger entry has no tool calls';
  if (calls.some((call) => known.has(call.id))) return 'its calls are already elsewhere in the history';
  if (unknown.length > 0 && !unknown.some((id) => calls.some((call) => call.id === id))) return 'the results carry other call ids';
  const names = new Set(calls.map((call) => call.function.name));
  for (const result of block) {
    if (nonEmptyString(result.name) && !names.has(result.name)) return `a result names '${result.name}', which it did not call`;
  }
  if (assistant !== null) {
    const sent = norm(contentText(assistant.content));
    const recorded = norm(contentText(entry.message.content));
    if (sent !== '' && recorded !== '' && sent !== recorded) return 'the assistant text differs';
  }
  return null;
}

export const restoreToolCallsPass: RepairPass = {
  name: 'restore-tool-calls',
  run(request, context) {
    const { byCallId, byPrefix } = context.ledger;
    if (byCallId.size === 0 && byPrefix.size === 0) return { request, findings: [] };
    const messages = request.messages;
    const known = allCallIds(messages);
    const replaced = new Map<number, RawChatMessage>();
    const inserted = new Map<number, RawChatMessage>();
    const findings: Finding[] = [];
    let prefixes: string[] | null = null;

    for (let i = 0; i < messages.length; ) {
      if (messages[i].role !== 'tool') {
        i++;
        continue;
      }
      let end = i;
      while (end < messages.length && messages[end].role === 'tool') end++;
      const block = messages.slice(i, end);
      const unknown = block.map(resultId).filter((id) => id !== '' && !known.has(id));
      const byId = unknown.map((id) => byCallId.get(id)).find((entry) => entry !== undefined);
      const prev = i > 0 && messages[i - 1].role === 'assistant' ? messages[i - 1] : null;
      const at = i - 1;
      i = end;

      if (prev !== null && !hasCalls(prev)) {
        // The assistant lost all its calls.
        let entry = byId;
        if (entry === undefined && byPrefix.size > 0) {
          prefixes ??= allPrefixFingerprints(messages, context.ledgerScope);
          entry = byPrefix.get(prefixes[at]);
        }
        if (entry === undefined) continue;
        const why = misfit(entry, prev, block, unknown, known);
        if (why !== null) {
          findings.push(finding('ledger_mismatch', at, `ledger calls not restored: ${why}`, true));
          continue;
        }
        const calls = cloneCalls(entry.message.tool_calls ?? []);
        replaced.set(at, { ...prev, tool_calls: calls });
        for (const call of calls) known.add(call.id);
        const list = calls.map((call) => `${call.function.name}(${call.id})`).join(', ');
        findings.push(finding('restored_tool_calls', at, `tool_calls restored from the ledger: ${list}`));
      } else if (prev !== null && byId !== undefined) {
        // Some parallel calls were dropped: the ledger message must contain every call still present.
        const calls = byId.message.tool_calls ?? [];
        const present = (prev.tool_calls ?? []).map(callId);
        const ids = new Set(calls.map((call) => call.id));
        const extra = calls.filter((call) => !present.includes(call.id));
        if (!present.every((id) => ids.has(id)) || extra.some((call) => known.has(call.id))) continue;
        replaced.set(at, { ...prev, tool_calls: cloneCalls(calls) });
        for (const call of extra) known.add(call.id);
        const list = extra.map((call) => `${callName(call)}(${call.id})`).join(', ');
        findings.push(finding('restored_tool_calls', at, `dropped parallel calls restored from the ledger: ${list}`));
      } else if (prev === null && byId !== undefined) {
        // The whole assistant message is gone: results follow a user message (or nothing).
        const why = misfit(byId, null, block, unknown, known);
        if (why !== null) {
          findings.push(finding('ledger_mismatch', at + 1, `ledger message not re-inserted: ${why}`, true));
          continue;
        }
        const calls = cloneCalls(byId.message.tool_calls ?? []);
        inserted.set(at + 1, { role: 'assistant', content: byId.message.content ?? null, tool_calls: calls });
        for (const call of calls) known.add(call.id);
        const text = contentText(byId.message.content);
        findings.push(
          finding('restored_assistant_message', at + 1, `assistant message re-inserted from the ledger (${calls.length} calls${text ? `, "${clip(text, 30)}"` : ''})`),
        );
      }
    }

    if (replaced.size === 0 && inserted.size === 0) return { request, findings };
    const out: RawChatMessage[] = [];
    messages.forEach((message, index) => {
      const before = inserted.get(index);
      if (before !== undefined) out.push(before);
      out.push(replaced.get(index) ?? message);
    });
    return { request: { ...request, messages: out }, findings };
  },
};
