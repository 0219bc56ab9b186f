import type { RawChatMessage, ToolCall } from '../api/chat-types.js';
import type { Finding, RepairPass } from './types.js';
import { allCallIds, callId, callName, finding, hasCalls, MessageList, resultId, uniqueId } from './util.js';

// Pass 8: call ids must be unique across the history, and present. Upstreams that number calls
// per turn (`0`, `call_0`) repeat them every turn; strict upstreams then cannot tell which result
// answers which call. Later occurrences get a suffix, and each result follows the occurrence it
// answers: the nearest earlier call with that id (the first one when the result comes too early).

interface Occurrence {
  message: number;
  call: number;
  id: string;
}

export const callIdsPass: RepairPass = {
  name: 'call-ids',
  run(request) {
    const messages = request.messages;
    const seen = new Set<string>();
    let needed = false;
    for (const message of messages) {
      if (message.role !== 'assistant' || !hasCalls(message)) continue;
      for (const call of message.tool_calls) {
        const id = callId(call);
        if (id === '' || seen.has(id)) needed = true;
        seen.add(id);
      }
    }
    if (!needed) return { request, findings: [] };

    const findings: Finding[] = [];
    const declared = allCallIds(messages);
    const taken = new Set<string>(declared);
    for (const message of messages) if (resultId(message) !== '') taken.add(resultId(message));
    const adopted = new Set<string>();
    const occurrences = new Map<string, Occurrence[]>();
    const list = new MessageList(messages);
    const renamed = new Map<number, ToolCall[]>();

    const rename = (a: number, j: number, id: string): void => {
      const calls = renamed.get(a) ?? (messages[a].tool_calls as ToolCall[]).slice();
      calls[j] = { ...calls[j], id };
      renamed.set(a, calls);
    };

    messages.forEach((message, a) => {
      if (message.role !== 'assistant' || !hasCalls(message)) return;
      message.tool_calls.forEach((call, j) => {
        const id = callId(call);
        if (id === '') {
          // Adopt an id from the results right after this message that no call declares, else make one.
          let found = '';
          for (let t = a + 1; t < messages.length && messages[t].role === 'tool'; t++) {
            const candidate = resultId(messages[t]);
            if (candidate !== '' && !declared.has(candidate) && !adopted.has(candidate)) {
              found = candidate;
              break;
            }
          }
          const next = found !== '' ? found : uniqueId(`call_${a}_${j}`, taken);
          adopted.add(next);
          rename(a, j, next);
          findings.push(finding('missing_call_id', a, `call ${j} (${callName(call)}) had no id: now ${next}${found ? ' (taken from its result)' : ''}`));
          return;
        }
        const seenBefore = occurrences.get(id) ?? [];
        const next = seenBefore.length === 0 ? id : uniqueId(`${id}_${seenBefore.length + 1}`, taken);
        seenBefore.push({ message: a, call: j, id: next });
        occurrences.set(id, seenBefore);
        if (next !== id) {
          rename(a, j, next);
          findings.push(finding('duplicate_call_id', a, `call id ${id} used again: this one is now ${next}`));
        }
      });
    });
    for (const [a, calls] of renamed) list.set(a, { ...messages[a], tool_calls: calls });

    // Results answer the nearest earlier occurrence; several results for one message share its
    // occurrences in order (two calls with the same id in one message).
    const used = new Map<string, number>();
    messages.forEach((message, t) => {
      const id = resultId(message);
      const all = message.role === 'tool' ? occurrences.get(id) : undefined;
      if (all === undefined || all.length < 2) return;
      let owner = all[0].message;
      for (const occ of all) if (occ.message < t) owner = occ.message;
      const mine = all.filter((occ) => occ.message === owner);
      const key = `${id}\u0000${owner}`;
      const k = used.get(key) ?? 0;
      used.set(key, k + 1);
      const target = mine[Math.min(k, mine.length - 1)].id;
      if (target !== id) list.set(t, { ...message, tool_call_id: target } satisfies RawChatMessage);
    });
    return { request: list.result(request), findings };
  },
};
