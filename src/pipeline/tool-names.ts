import type { ChatMessage, ChatRequest, ToolCall } from '../api/chat-types.js';

// Rewrites every place a tool name or call id appears in a request (declarations, tool_choice,
// assistant tool_calls, tool messages), so upstream rules on names and ids can be met and the
// answer mapped back. Returns the same request when nothing changes.

export function rewriteToolNames(request: ChatRequest, rename: (name: string) => string): ChatRequest {
  const tools = request.tools?.map((tool) => ({ ...tool, function: { ...tool.function, name: rename(tool.function.name) } }));
  const choice = request.tool_choice;
  const toolChoice =
    choice && typeof choice === 'object' && 'function' in choice && choice.function && typeof choice.function === 'object'
      ? { ...choice, function: { ...(choice.function as { name: string }), name: rename((choice.function as { name: string }).name) } }
      : choice;
  const messages = request.messages.map((message) => rewriteMessage(message, (call) => ({ ...call, function: { ...call.function, name: rename(call.function.name) } }), (m) =>
    m.role === 'tool' && typeof m.name === 'string' ? { ...m, name: rename(m.name) } : m,
  ));
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
