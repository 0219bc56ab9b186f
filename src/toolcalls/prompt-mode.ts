import type { ChatMessage, ChatRequest, MessageContent, ToolCall, ToolChoice, ToolDefinition } from '../api/chat-types.js';
import { customCallInput, customCallName, customToolName, isCustomCall } from '../api/custom-calls.js';

// Prompt mode, for upstreams without native tools: the declared tools (and tool_choice) are
// written into the system prompt in the Hermes / Qwen convention, and the history is rewritten
// to match — assistant tool_calls become <tool_call> blocks in the assistant's text, tool results
// become user messages wrapped in <tool_response>. The answer is then read by the text parsers.

const TOOL_FIELDS = ['tools', 'tool_choice', 'parallel_tool_calls', 'functions', 'function_call'] as const;

export function toPromptMode(request: ChatRequest): ChatRequest {
  const tools = request.tools ?? [];
  const rewritten: Record<string, unknown> = { ...request };
  for (const field of TOOL_FIELDS) delete rewritten[field];
  const messages = rewriteHistory(request.messages);
  if (tools.length === 0) return { ...(rewritten as ChatRequest), messages };
  const toolsPrompt = renderToolsPrompt(tools, request.tool_choice, request.parallel_tool_calls !== false);
  return { ...(rewritten as ChatRequest), messages: withSystemPrompt(messages, toolsPrompt) };
}

export function renderToolsPrompt(tools: readonly ToolDefinition[], toolChoice: ToolChoice | undefined, parallel: boolean): string {
  // A custom tool (custom-calls.ts) is shown as declared.
  const signatures = tools.map((tool) => JSON.stringify(customToolName(tool) !== undefined ? tool : { type: 'function', function: tool.function })).join('\n');
  const lines = [
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    '<tools>',
    signatures,
    '</tools>',
    '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>',
    '{"name": <function-name>, "arguments": <args-json-object>}',
    '</tool_call>',
  ];
  const rules = choiceRules(toolChoice, parallel);
  if (rules.length > 0) lines.push('', ...rules);
  lines.push('', 'Function results come back inside <tool_response></tool_response> tags.');
  return lines.join('\n');
}

function choiceRules(toolChoice: ToolChoice | undefined, parallel: boolean): string[] {
  const rules: string[] = [];
  if (toolChoice === 'none') rules.push('Do not call any function in this answer; answer in plain text.');
  else if (toolChoice === 'required') rules.push('You must call at least one function in this answer.');
  else if (typeof toolChoice === 'object' && toolChoice !== null) {
    const fn = (toolChoice as { function?: unknown }).function;
    const name = typeof fn === 'object' && fn !== null ? (fn as { name?: unknown }).name : undefined;
    if (typeof name === 'string') rules.push(`You must call the function "${name}" in this answer.`);
  }
  if (!parallel && toolChoice !== 'none') rules.push('Call at most one function per answer.');
  return rules;
}

function withSystemPrompt(messages: ChatMessage[], toolsPrompt: string): ChatMessage[] {
  const first = messages[0];
  if (first && (first.role === 'system' || first.role === 'developer')) {
    const existing = textOf(first.content);
    return [{ ...first, content: existing ? `${existing}\n\n${toolsPrompt}` : toolsPrompt }, ...messages.slice(1)];
  }
  return [{ role: 'system', content: toolsPrompt }, ...messages];
}

function rewriteHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
      const text = textOf(message.content);
      const blocks = message.tool_calls.map(renderToolCall).join('\n');
      out.push({ role: 'assistant', content: text ? `${text}\n${blocks}` : blocks });
      continue;
    }
    if (message.role === 'tool' || message.role === 'function') {
      const response = `<tool_response>\n${textOf(message.content)}\n</tool_response>`;
      const previous = out[out.length - 1];
      // Consecutive results share one user turn, as the Qwen template renders them.
      if (previous && previous.role === 'user' && typeof previous.content === 'string' && previous.content.endsWith('</tool_response>')) {
        out[out.length - 1] = { ...previous, content: `${previous.content}\n${response}` };
      } else {
        out.push({ role: 'user', content: response });
      }
      continue;
    }
    out.push(message);
  }
  return out;
}

export function renderToolCall(call: ToolCall): string {
  if (isCustomCall(call)) return block(JSON.stringify({ name: customCallName(call), input: customCallInput(call) }));
  const raw = call.function.arguments;
  const name = JSON.stringify(call.function.name);
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') return block(`{"name":${name},"arguments":{}}`);
  try {
    return block(JSON.stringify({ name: call.function.name, arguments: JSON.parse(text) as unknown }));
  } catch {
    // Not JSON: shown as the string it is. Too deep to re-serialize (JSON.stringify recurses):
    // the valid JSON text goes in as it is (JSON.parse is iterative and just accepted it).
  }
  return block(`{"name":${name},"arguments":${isJson(text) ? text : JSON.stringify(raw)}}`);
}

function block(json: string): string {
  return `<tool_call>\n${json}\n</tool_call>`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function textOf(content: MessageContent | null | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}
