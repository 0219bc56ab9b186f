import type { ChatChoice, ChatCompletion, ToolCall } from '../api/chat-types.js';
import { ensureUniqueToolCallIds, newToolCallId } from './ids.js';
import {
  type NormalizeContext,
  type NormalizeReport,
  createReport,
  fixCallArguments,
  noteTextCallName,
  parseContextOf,
  resolveCallName,
} from './normalize-shared.js';
import { parseWithDetails } from './parse.js';

// Makes an upstream answer a proper OpenAI tool-call answer: names decoded and aliased to the
// declared ones, text-written calls turned into tool_calls (when the answer has no structured
// ones), distinct ids, repaired and validated arguments, finish_reason "tool_calls" whenever there
// are calls. Objects that need no change are returned as they are.

export type { NormalizeContext, NormalizeReport } from './normalize-shared.js';
export { createReport } from './normalize-shared.js';

export function normalizeCompletion(completion: ChatCompletion, ctx: NormalizeContext): { completion: ChatCompletion; report: NormalizeReport } {
  const report = createReport();
  if (ctx.tools.size === 0) {
    // No tools declared: nothing to map or parse.
    for (const choice of completion.choices) {
      const count = choice.message.tool_calls?.length ?? 0;
      report.toolCalls += count;
      if (count > 0) report.mode = 'native';
    }
    return { completion, report };
  }
  let changed = false;
  const choices = completion.choices.map((choice) => {
    const next = normalizeChoice(choice, ctx, report);
    changed ||= next !== choice;
    return next;
  });
  return { completion: changed ? { ...completion, choices } : completion, report };
}

function normalizeChoice(choice: ChatChoice, ctx: NormalizeContext, report: NormalizeReport): ChatChoice {
  const message = choice.message;
  const native = message.tool_calls;
  if (native && native.length > 0) {
    report.mode = 'native';
    report.toolCalls += native.length;
    const fixed = ensureUniqueToolCallIds(native.map((call) => normalizeNativeCall(call, ctx, report))).calls;
    const same = fixed.every((call, index) => call === native[index]);
    if (same && choice.finish_reason === 'tool_calls') return choice;
    return { ...choice, message: same ? message : { ...message, tool_calls: fixed }, finish_reason: 'tool_calls' };
  }
  if (!ctx.textParsing || typeof message.content !== 'string' || message.content === '') return choice;

  const { result, rejectedNames } = parseWithDetails(message.content, parseContextOf(ctx));
  report.unknownNames += rejectedNames;
  if (!result) return choice;
  if (report.mode === 'none') report.mode = 'text';
  report.format ??= result.format;
  report.toolCalls += result.calls.length;
  const toolCalls: ToolCall[] = result.calls.map((call) => {
    noteTextCallName(call.calledName, call.name, ctx, report);
    return { id: newToolCallId(), type: 'function', function: { name: call.name, arguments: fixCallArguments(call.arguments, call.name, ctx, report) } };
  });
  return { ...choice, message: { ...message, content: result.content, tool_calls: toolCalls }, finish_reason: 'tool_calls' };
}

function normalizeNativeCall(call: ToolCall, ctx: NormalizeContext, report: NormalizeReport): ToolCall {
  const fn = call.function ?? { name: '', arguments: '' };
  const name = typeof fn.name === 'string' ? resolveCallName(fn.name, ctx, report) : '';
  const args = fixCallArguments(fn.arguments, name, ctx, report);
  if (call.type === 'function' && name === fn.name && args === fn.arguments) return call;
  return { ...call, type: 'function', function: { ...fn, name, arguments: args } };
}
