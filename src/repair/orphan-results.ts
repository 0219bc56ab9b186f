import type { RawChatMessage, ContentPart } from '../api/chat-types.js';
import type { Finding, RepairPass } from './types.js';
import { allCallIds, contentText, finding, MessageList, nonEmptyString, resultId } from './util.js';

// Pass 3: a tool result whose call is nowhere in the history (and the ledger could not bring it
// back) is rejected by strict upstreams and misread by lenient ones. Its content still matters to
// the model, so it becomes a user message that says it is a tool result. Never dropped.

function header(message: RawChatMessage): string {
  const name = nonEmptyString(message.name) ? ` from '${message.name}'` : '';
  const id = resultId(message) !== '' ? ` (call id ${resultId(message)})` : '';
  return `[Tool result${name}${id}; the tool call it answers is not in this conversation]`;
}

/** The orphan's content as user content: header + the original text (parts kept as parts). */
function asUserContent(message: RawChatMessage): RawChatMessage['content'] {
  const content: unknown = message.content;
  if (Array.isArray(content) && content.length > 0) {
    return [{ type: 'text', text: header(message) }, ...(content as ContentPart[])];
  }
  return `${header(message)}\n${contentText(content)}`;
}

/** Fast path: every result answers a call of the nearest assistant message before it. */
function allAnswerTheirAssistant(messages: readonly RawChatMessage[]): boolean {
  let calls: RawChatMessage['tool_calls'] = undefined;
  for (const message of messages) {
    if (message.role === 'assistant') calls = message.tool_calls;
    else if (message.role === 'tool') {
      const id = resultId(message);
      if (id === '' || !Array.isArray(calls) || !calls.some((call) => call?.id === id)) return false;
    }
  }
  return true;
}

export const orphanResultsPass: RepairPass = {
  name: 'orphan-results',
  run(request) {
    const messages = request.messages;
    if (allAnswerTheirAssistant(messages)) return { request, findings: [] };
    let declared: Set<string> | null = null;
    const list = new MessageList(messages);
    const findings: Finding[] = [];
    messages.forEach((message, i) => {
      if (message.role !== 'tool') return;
      declared ??= allCallIds(messages);
      const id = resultId(message);
      if (id !== '' && declared.has(id)) return;
      const user: RawChatMessage = { role: 'user', content: asUserContent(message) };
      list.set(i, user);
      const what = id !== '' ? `its call ${id} is not in the history or the ledger` : 'it has no tool_call_id and no open call to answer';
      findings.push(finding('orphan_tool_result', i, `tool result kept as a user message: ${what}`));
    });
    return { request: list.result(request), findings };
  },
};
