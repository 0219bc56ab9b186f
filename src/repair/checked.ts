import type { ChatRequest, RawChatMessage, RawChatRequest } from '../api/chat-types.js';
import { isRecord } from './util.js';

// The last step of repair: a RawChatRequest (what validation checked: model, roles, array
// shapes) becomes the ChatRequest every later step relies on, but only after one linear walk has
// checked what that type promises about each message. The passes leave a request this walk
// accepts; what can still fail it is a structural pass switched off, or strict mode given a shape
// no pass flags. Custom-tool calls (`type: "custom"`) and non-function tools are the upstream's
// business and pass as they are.

function contentProblem(content: unknown): boolean {
  if (content === undefined || content === null || typeof content === 'string') return false;
  if (!Array.isArray(content)) return true;
  return content.some((part) => !isRecord(part) || typeof part.type !== 'string');
}

function callProblem(call: unknown): string | null {
  if (!isRecord(call)) return 'is not an object';
  if (call.type === 'custom') return null;
  if (typeof call.id !== 'string') return 'has no string id';
  if (call.type !== 'function') return "has a type other than 'function'";
  const fn = call.function;
  if (!isRecord(fn) || typeof fn.name !== 'string') return 'has no function name';
  if (typeof fn.arguments !== 'string') return 'has arguments that are not a string';
  return null;
}

function messageProblems(message: RawChatMessage, i: number, out: string[]): void {
  if (contentProblem(message.content)) out.push(`messages[${i}].content is neither a string nor an array of content parts`);
  if (message.name !== undefined && message.name !== null && typeof message.name !== 'string') out.push(`messages[${i}].name is not a string`);
  if (message.tool_call_id !== undefined && typeof message.tool_call_id !== 'string') out.push(`messages[${i}].tool_call_id is not a string`);
  const calls = message.tool_calls;
  if (calls === undefined) return;
  if (!Array.isArray(calls)) {
    out.push(`messages[${i}].tool_calls is not an array`);
    return;
  }
  for (let j = 0; j < calls.length; j++) {
    const problem = callProblem(calls[j]);
    if (problem !== null) out.push(`messages[${i}].tool_calls[${j}] ${problem}`);
  }
}

function toolsProblems(request: RawChatRequest, out: string[]): void {
  const tools: unknown = request.tools;
  if (tools !== undefined && !Array.isArray(tools)) out.push('tools is not an array');
  if (Array.isArray(tools)) {
    tools.forEach((tool: unknown, i) => {
      if (!isRecord(tool) || typeof tool.type !== 'string') out.push(`tools[${i}] has no type`);
      else if (tool.type === 'function' && !(isRecord(tool.function) && typeof tool.function.name === 'string')) out.push(`tools[${i}] has no function name`);
    });
  }
  const choice = request.tool_choice;
  if (choice === undefined || typeof choice === 'string') return;
  if (!isRecord(choice) || typeof choice.type !== 'string') out.push('tool_choice is neither a string nor an object with a type');
}

/** What keeps `request` from being a ChatRequest (empty: it is one). Linear in the history. */
export function shapeProblems(request: RawChatRequest): string[] {
  const out: string[] = [];
  toolsProblems(request, out);
  const messages = request.messages;
  for (let i = 0; i < messages.length && out.length < 20; i++) messageProblems(messages[i], i, out);
  return out;
}

/** The type guard that turns a repaired request into the strict type. */
export function isChatRequest(request: RawChatRequest): request is RawChatRequest & ChatRequest {
  return shapeProblems(request).length === 0;
}
