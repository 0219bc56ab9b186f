import type { RawChatMessage } from '../api/chat-types.js';
import type { Finding, RepairPass } from './types.js';
import { callId, callName, finding, hasCalls, MessageList, nonEmptyString, resultId } from './util.js';

// Pass 2: a tool result without tool_call_id answers one of the preceding assistant's calls that
// no result answers yet: the one with the result's `name` when it has one, else the next one in
// call order. When that is a guess (several same-name calls, a name no call has, fewer results
// than open calls) the match is still made, and an advisory `ambiguous_tool_result` finding says so.
// Results with no open call to take stay as they are; the orphan pass keeps their content.

export const resultIdsPass: RepairPass = {
  name: 'result-ids',
  run(request) {
    const messages = request.messages;
    if (!messages.some((message) => message.role === 'tool' && resultId(message) === '')) return { request, findings: [] };

    const answered = new Set<string>();
    for (const message of messages) if (message.role === 'tool' && resultId(message) !== '') answered.add(resultId(message));

    // Group the id-less results by the assistant message before them.
    const groups = new Map<number, number[]>();
    let assistant = -1;
    messages.forEach((message, i) => {
      if (message.role === 'assistant') assistant = i;
      if (message.role !== 'tool' || resultId(message) !== '' || assistant < 0) return;
      const group = groups.get(assistant) ?? [];
      group.push(i);
      groups.set(assistant, group);
    });

    const list = new MessageList(messages);
    const findings: Finding[] = [];
    for (const [a, results] of groups) {
      const owner = messages[a];
      if (!hasCalls(owner)) continue;
      const open: unknown[] = owner.tool_calls.filter((call) => callId(call) !== '' && !answered.has(callId(call)));
      const openCount = open.length;
      const countsDiffer = openCount !== results.length;
      for (const t of results) {
        if (open.length === 0) break;
        const message: RawChatMessage = messages[t];
        const name = nonEmptyString(message.name) ? message.name : '';
        const sameName = name ? open.filter((call) => callName(call) === name) : [];
        const pick = sameName.length > 0 ? sameName[0] : open[0];
        open.splice(open.indexOf(pick), 1);
        answered.add(callId(pick));
        list.set(t, { ...message, tool_call_id: callId(pick) });
        const how = sameName.length > 0 ? `by name '${name}'` : 'by position';
        findings.push(finding('missing_tool_call_id', t, `result had no tool_call_id: matched ${how} to ${callName(pick)}(${callId(pick)})`));
        const why =
          sameName.length > 1
            ? `${sameName.length} open calls are named '${name}'`
            : name && sameName.length === 0
              ? `no open call is named '${name}'`
              : !name && countsDiffer
                ? `${results.length} id-less results for ${openCount} open calls`
                : '';
        if (why) findings.push(finding('ambiguous_tool_result', t, `${why}; took ${callId(pick)} in call order`, true));
      }
    }
    return { request: list.result(request), findings };
  },
};
