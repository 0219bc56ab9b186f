import type { AssistantMessage, ChatChoice, ChatCompletion, ToolCall } from '../api/chat-types.js';
import { isCustomCall } from '../api/custom-calls.js';
import { ensureUniqueToolCallIds, newToolCallId } from './ids.js';
import { finishReasonFor, isCutOff, nativeArgumentsText, upstreamIndex } from './normalize-decisions.js';
import {
  type NormalizeContext,
  type NormalizeReport,
  checkNativeArguments,
  createReport,
  fixCallArguments,
  noteTextCallName,
  parseContextOf,
  resolveCallName,
} from './normalize-shared.js';
import { parseWithDetails } from './parse.js';

// Makes an upstream answer a proper OpenAI tool-call answer, by the decisions in
// normalize-decisions.ts (the stream normalizer makes the same ones): names decoded and aliased to
// the declared ones, text-written calls turned into tool_calls (when the answer has no structured
// ones and text calls are looked for), distinct ids, native arguments kept as sent, finish_reason
// "tool_calls" whenever there are calls and the answer was not cut off. Objects that need no
// change are returned as they are.

export type { NormalizeContext, NormalizeReport } from './normalize-shared.js';
export { createReport } from './normalize-shared.js';

export function normalizeCompletion(completion: ChatCompletion, ctx: NormalizeContext): { completion: ChatCompletion; report: NormalizeReport } {
  const report = createReport();
  for (const choice of completion.choices) {
    upstreamIndex(choice.index, 'choices[].index', ctx.provider);
    if (isCutOff(choice.finish_reason)) report.cutOff = true;
  }
  if (ctx.tools.size === 0 && (ctx.reasoning ?? 'content') === 'content' && !ctx.legacyFunctions && !completion.choices.some(hasNativeCalls)) {
    // No tools declared and no calls: nothing to map or parse.
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

function hasNativeCalls(choice: ChatChoice): boolean {
  return (choice.message.tool_calls?.length ?? 0) > 0;
}

function normalizeChoice(choice: ChatChoice, ctx: NormalizeContext, report: NormalizeReport): ChatChoice {
  const next = normalizeCalls(choice, ctx, report);
  return ctx.legacyFunctions ? toLegacy(next) : next;
}

function normalizeCalls(choice: ChatChoice, ctx: NormalizeContext, report: NormalizeReport): ChatChoice {
  const message = choice.message;
  const native = message.tool_calls;
  if (native && native.length > 0) {
    report.mode = 'native';
    report.toolCalls += native.length;
    const cutOff = isCutOff(choice.finish_reason);
    const fixed = ensureUniqueToolCallIds(native.map((call) => normalizeNativeCall(call, ctx, report, cutOff))).calls;
    const same = fixed.every((call, index) => call === native[index]);
    const split = splitReasoning(message, ctx);
    const finish = finishReasonFor(choice.finish_reason, true);
    if (same && split === message && choice.finish_reason === finish) return choice;
    return { ...choice, message: same ? split : { ...split, tool_calls: fixed }, finish_reason: finish };
  }
  const reasoningMode = ctx.reasoning ?? 'content';
  if (typeof message.content !== 'string' || message.content === '') return choice;
  if (!ctx.textParsing && reasoningMode === 'content') return choice;

  const cutOff = isCutOff(choice.finish_reason);
  const outcome = parseWithDetails(message.content, parseContextOf(ctx), { reasoning: reasoningMode, calls: ctx.textParsing, cutOff });
  report.unknownNames += outcome.rejectedNames;
  report.malformedCalls += outcome.malformedCalls;
  const result = outcome.result;
  if (!result) {
    // In `content` mode the text changes only where a format rewrote it (harmony markers): as in a stream.
    if (outcome.content === message.content && outcome.reasoning === '') return choice;
    return { ...choice, message: withReasoning({ ...message, content: outcome.content }, outcome.reasoning) };
  }
  if (report.mode === 'none') report.mode = 'text';
  report.format ??= result.format;
  report.toolCalls += result.calls.length;
  const toolCalls: ToolCall[] = result.calls.map((call) => {
    noteTextCallName(call.calledName, call.name, ctx, report);
    return { id: newToolCallId(), type: 'function', function: { name: call.name, arguments: fixCallArguments(call.arguments, call.name, ctx, report) } };
  });
  const next = withReasoning({ ...message, content: result.content, tool_calls: toolCalls }, outcome.reasoning);
  return { ...choice, message: next, finish_reason: finishReasonFor(choice.finish_reason, true) };
}

/** Native calls: the content's reasoning still follows the reasoning mode. */
function splitReasoning(message: AssistantMessage, ctx: NormalizeContext): AssistantMessage {
  if ((ctx.reasoning ?? 'content') === 'content' || typeof message.content !== 'string' || message.content === '') return message;
  const outcome = parseWithDetails(message.content, parseContextOf(ctx), { reasoning: ctx.reasoning, calls: false });
  if (outcome.content === message.content && outcome.reasoning === '') return message;
  return withReasoning({ ...message, content: outcome.content }, outcome.reasoning);
}

/** Reasoning split out of the text goes where OpenAI-compatible servers put it (after any the upstream sent). */
function withReasoning(message: AssistantMessage, reasoning: string): AssistantMessage {
  if (reasoning === '') return message;
  const before = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
  return { ...message, reasoning_content: before + reasoning };
}

function normalizeNativeCall(call: ToolCall, ctx: NormalizeContext, report: NormalizeReport, cutOff: boolean): ToolCall {
  // A custom-tool call goes on as the upstream wrote it (only its id may be made usable).
  if (isCustomCall(call)) return call;
  const fn = call.function ?? { name: '', arguments: '' };
  const name = typeof fn.name === 'string' ? resolveCallName(fn.name, ctx, report) : '';
  const args = nativeArgumentsText(fn.arguments, cutOff);
  checkNativeArguments(args, name, ctx, report);
  if (call.type === 'function' && name === fn.name && args === fn.arguments) return call;
  return { ...call, type: 'function', function: { ...fn, name, arguments: args } };
}

/** A completion in the legacy protocol (see toLegacy): for an answer judged as tool_calls first (the contract). */
export function toLegacyCompletion(completion: ChatCompletion): ChatCompletion {
  let changed = false;
  const choices = completion.choices.map((choice) => {
    const next = toLegacy(choice);
    changed ||= next !== choice;
    return next;
  });
  return changed ? { ...completion, choices } : completion;
}

/**
 * A legacy `functions` request gets a legacy answer: the first call as `function_call` (the
 * protocol had one call per answer), finish_reason "function_call" unless the answer was cut off.
 */
function toLegacy(choice: ChatChoice): ChatChoice {
  const { tool_calls: calls, ...message } = choice.message;
  if (!calls || calls.length === 0) return choice;
  const first = calls[0].function;
  const finish = choice.finish_reason === 'tool_calls' ? 'function_call' : choice.finish_reason;
  return { ...choice, message: { ...message, function_call: { name: first.name, arguments: first.arguments } }, finish_reason: finish };
}
