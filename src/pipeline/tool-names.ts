import type { ChatMessage, ChatRequest, ToolCall } from '../api/chat-types.js';
import { customCallName } from '../api/custom-calls.js';
import { isRecord } from '../is-record.js';

// Rewrites every place a tool name or call id appears in a request (declarations, tool_choice,
// assistant tool_calls, tool messages), so upstream rules on names and ids can be met and the
// answer mapped back. Returns the same request when nothing changes.

// Custom tools and their calls (`type: "custom"`, custom-calls.ts) are left as they are.
export function rewriteToolNames(request: ChatRequest, rename: (name: string) => string): ChatRequest {
  const tools = request.tools?.map((tool) => (isFunction(tool.function) ? { ...tool, function: { ...tool.function, name: rename(tool.function.name) } } : tool));
  const choice = request.tool_choice;
  let toolChoice = choice;
  if (isRecord(choice) && isFunction(choice.function)) toolChoice = { ...choice, function: { ...choice.function, name: rename(choice.function.name) } };
  else if (isRecord(choice) && choice.type === 'allowed_tools' && isRecord(choice.allowed_tools) && Array.isArray(choice.allowed_tools.tools)) {
    const allowed = choice.allowed_tools.tools.map((tool: unknown) => (isRecord(tool) && isFunction(tool.function) ? { ...tool, function: { ...tool.function, name: rename(tool.function.name) } } : tool));
    toolChoice = { ...choice, allowed_tools: { ...choice.allowed_tools, tools: allowed } };
  }
  const messages = request.messages.map((message) =>
    rewriteMessage(message, (call) => (isFunction(call.function) ? { ...call, function: { ...call.function, name: rename(call.function.name) } } : call), (m) =>
      m.role === 'tool' && typeof m.name === 'string' ? { ...m, name: rename(m.name) } : m,
    ),
  );
  return { ...request, ...(tools ? { tools } : {}), ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}), messages };
}

export function rewriteToolCallIds(request: ChatRequest, mapId: (id: string) => string): ChatRequest {
  const messages = request.messages.map((message) =>
    rewriteMessage(message, (call) => ({ ...call, id: mapId(call.id) }), (m) =>
      m.role === 'tool' && typeof m.tool_call_id === 'string' ? { ...m, tool_call_id: mapId(m.tool_call_id) } : m,
    ),
  );
  return { ...request, messages };
}

/**
 * Call ids in Kimi K2's form, `functions.<name>:<n>`, n counting the conversation's calls in order
 * from 0; each tool message follows its call. An id no call carries is left as it is.
 */
export function nameCounterToolCallIds(request: ChatRequest): ChatRequest {
  const ids = new Map<string, string>();
  for (const message of request.messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls) {
      const name = isFunction(call.function) ? call.function.name : customCallName(call);
      if (!ids.has(call.id)) ids.set(call.id, `functions.${name}:${ids.size}`);
    }
  }
  return ids.size === 0 ? request : rewriteToolCallIds(request, (id) => ids.get(id) ?? id);
}

function rewriteMessage(
  message: ChatMessage,
  rewriteCall: (call: ToolCall) => ToolCall,
  rewriteOther: (message: ChatMessage) => ChatMessage,
): ChatMessage {
  if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
    return { ...message, tool_calls: message.tool_calls.map(rewriteCall) };
  }
  return rewriteOther(message);
}

/** A `function` object with a string name (a custom tool or call has none). */
function isFunction(fn: unknown): fn is { name: string; [key: string]: unknown } {
  return isRecord(fn) && typeof fn.name === 'string';
}
