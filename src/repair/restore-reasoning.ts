import type { RawChatMessage } from '../api/chat-types.js';
import { callSignature, reasoningOf, recordedReasoning, recordedSignature, withSignature } from '../ledger/reasoning.js';
import type { LedgerEntry } from '../ledger/types.js';
import type { Finding, RepairPass } from './types.js';
import { callId, finding, hasCalls, isRecord } from './util.js';

// Thinking models want the reasoning that came with a tool call back with it (DeepSeek answers 400
// without it, Gemini 3 without the call's thought signature), and most clients drop it: the
// OpenAI SDKs rebuild assistant messages from content and tool_calls only. The ledger kept, with
// each answered call, its reasoning and signatures; an assistant tool-call message of the current
// turn (after the last user message: the part these upstreams check) that lacks them gets them
// back, exactly as answered. Only when the target needs them (context.restoreReasoning, decided
// per model by src/pipeline/reasoning-support.ts), and only from an entry that recorded every
// call of that message: by call id, in the request's own scope, so never another key's.

/** The one entry that answered all of these calls, or undefined. */
function entryOfCalls(calls: readonly unknown[], byCallId: ReadonlyMap<string, LedgerEntry>): LedgerEntry | undefined {
  let entry: LedgerEntry | undefined;
  for (const call of calls) {
    const found = byCallId.get(callId(call));
    if (found === undefined || (entry !== undefined && found !== entry)) return undefined;
    entry = found;
  }
  return entry;
}

function currentTurnStart(messages: readonly RawChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i + 1;
  return 0;
}

export const restoreReasoningPass: RepairPass = {
  name: 'restore-reasoning',
  run(request, context) {
    const byCallId = context.ledger.byCallId;
    if (context.restoreReasoning !== true || byCallId.size === 0) return { request, findings: [] };
    const messages = request.messages;
    const findings: Finding[] = [];
    let out: RawChatMessage[] | undefined;
    for (let i = currentTurnStart(messages); i < messages.length; i++) {
      const message = messages[i];
      if (message.role !== 'assistant' || !hasCalls(message)) continue;
      const entry = entryOfCalls(message.tool_calls, byCallId);
      if (entry === undefined) continue;
      const reasoning = reasoningOf(message) === '' ? recordedReasoning(entry) : '';
      let signatures = 0;
      const calls = message.tool_calls.map((call) => {
        if (!isRecord(call) || callSignature(call) !== '') return call;
        const signature = recordedSignature(entry, callId(call));
        if (signature === '') return call;
        signatures++;
        return withSignature(call, signature);
      });
      if (reasoning === '' && signatures === 0) continue;
      out ??= messages.slice();
      out[i] = { ...message, ...(reasoning !== '' ? { reasoning_content: reasoning } : {}), ...(signatures > 0 ? { tool_calls: calls } : {}) };
      const what = [reasoning !== '' ? `reasoning (${reasoning.length} characters)` : '', signatures > 0 ? `${signatures} thought signature(s)` : ''].filter(Boolean).join(' and ');
      findings.push(finding('reasoning_restored', i, `${what} restored from the ledger`));
    }
    return out === undefined ? { request, findings } : { request: { ...request, messages: out }, findings };
  },
};
