import type { RawChatMessage, RawChatRequest } from '../api/chat-types.js';
import { callId, hasCalls, isRecord, nonEmptyString, resultId } from './util.js';

// The tool-history rules strict upstreams enforce, as a list of problems (empty = fine). Run on
// the repaired request as a safety net: if something is still wrong (a pass disabled, a shape no
// pass knows) the client gets a 400 naming it instead of the upstream's less helpful one.

const STRING_ROLES = new Set(['system', 'developer', 'user', 'tool']);

function contentProblem(message: RawChatMessage, i: number): string | null {
  const content: unknown = message.content;
  if (typeof content === 'string' || Array.isArray(content)) return null;
  if (message.role === 'assistant') {
    if ((content === null || content === undefined) && hasCalls(message)) return null;
    if (content === null || content === undefined) return `messages[${i}] (assistant) has no content and no tool_calls`;
  }
  if (STRING_ROLES.has(message.role) || message.role === 'assistant') {
    return `messages[${i}].content must be a string or an array of content parts (got ${JSON.stringify(content) ?? 'nothing'})`;
  }
  return null;
}

export function historyProblems(request: RawChatRequest): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  let open: Set<string> | null = null;
  let openAt = -1;
  const closeBlock = (): void => {
    if (open !== null && open.size > 0) {
      problems.push(`messages[${openAt}] has tool_calls without results: ${[...open].join(', ')}`);
    }
    open = null;
  };
  request.messages.forEach((message, i) => {
    const content = contentProblem(message, i);
    if (content !== null) problems.push(content);
    if (message.role === 'function') problems.push(`messages[${i}] uses the legacy role 'function'`);
    if (message.role === 'tool') {
      const id = resultId(message);
      if (id === '') problems.push(`messages[${i}] (tool) has no tool_call_id`);
      else if (open === null || !open.has(id)) problems.push(`messages[${i}] (tool) answers ${id}, which is not a call of the assistant message just before it`);
      else open.delete(id);
      return;
    }
    closeBlock();
    if (message.role !== 'assistant' || !hasCalls(message)) return;
    open = new Set();
    openAt = i;
    message.tool_calls.forEach((call, j) => {
      const id = callId(call);
      if (isRecord(call) && (call as { type?: unknown }).type === 'custom') {
        // Custom-tool calls: their shape is the upstream's business, but their results answer them.
        if (id !== '') open?.add(id);
        seen.add(id);
        return;
      }
      const fn: unknown = isRecord(call) ? call.function : undefined;
      if (id === '') problems.push(`messages[${i}].tool_calls[${j}] has no id`);
      else if (seen.has(id)) problems.push(`call id ${id} is used more than once (messages[${i}].tool_calls[${j}])`);
      if (!isRecord(fn) || !nonEmptyString(fn.name)) problems.push(`messages[${i}].tool_calls[${j}] has no function name`);
      else if (typeof fn.arguments !== 'string') problems.push(`messages[${i}].tool_calls[${j}].function.arguments is not a string`);
      seen.add(id);
      open?.add(id);
    });
  });
  closeBlock();
  return problems;
}
