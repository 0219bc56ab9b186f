import type { AssistantMessage, ChatCompletion } from '../api/chat-types.js';
import type { RepairBudget } from '../util/bounded-json.js';
import { customCallInput, customCallName, isCustomCall } from '../api/custom-calls.js';
import type { ArgumentsRepair } from './arguments.js';
import { checkAnswer, type AnswerCall, type RepairedCall, type Violation } from './check.js';
import type { ContractTerms } from './terms.js';

// An answer judged against the request's terms: its violations, and the answer as the client may
// get it: unchanged (arguments go on as the upstream sent them, docs/answers.md), but for extra
// calls dropped when the policy says `extraCalls: trim`, and arguments the check accepted only
// after a repair that cannot change meaning (JSON syntax, "2" → 2, "true" → true): those go on
// repaired, and are listed in `repairs` (the client's JSON.parse would throw on the original, or
// its schema check fail).

export interface JudgedMessage {
  violations: Violation[];
  message: AssistantMessage;
  /** Calls dropped by the `trim` policy. */
  trimmed: number;
  /** The repairs made to the message's arguments, one entry per repair of a call. */
  repairs: ArgumentsRepair[];
}

export interface JudgedCompletion {
  violations: Violation[];
  completion: ChatCompletion;
  trimmed: number;
  repairs: ArgumentsRepair[];
}

/**
 * `upstream`: the message as the upstream sent it (its structured calls' argument text is what is
 * checked: the normalizer may have converted values the contract does not allow to convert).
 */
export function judgeMessage(terms: ContractTerms, upstream: AssistantMessage | undefined, message: AssistantMessage, budget: RepairBudget, trimExtra: boolean): JudgedMessage {
  let calls = message.tool_calls ?? [];
  const own = upstream?.tool_calls;
  // Structured calls map one to one onto the normalized ones (calls read from text have no upstream twin).
  const sameCalls = own !== undefined && own.length === calls.length;
  let trimmed = 0;
  if (trimExtra && terms.singleCall && calls.length > 1) {
    trimmed = calls.length - 1;
    calls = calls.slice(0, 1);
  }
  const answerCalls: AnswerCall[] = calls.map((call, index) => {
    if (isCustomCall(call)) return { name: customCallName(call), arguments: customCallInput(call) };
    const text = sameCalls ? own[index]?.function?.arguments : undefined;
    return { name: call.function.name, arguments: typeof text === 'string' ? text : call.function.arguments };
  });
  const { violations, repaired } = checkAnswer(terms, answerCalls, budget);
  const repairs: ArgumentsRepair[] = [];
  let changed = trimmed > 0;
  for (const fix of repaired) {
    const call = calls[fix.index];
    if (sameValue(call.function.arguments, fix.arguments)) continue; // the normalizer did it already ("" → {})
    if (!changed) calls = [...calls];
    changed = true;
    calls[fix.index] = { ...call, function: { ...call.function, arguments: fix.arguments } };
    repairs.push(...fix.repairs);
  }
  return { violations, message: changed ? { ...message, tool_calls: calls } : message, trimmed, repairs };
}

/** The client's argument text already reads as the repaired object. */
function sameValue(text: string, repaired: RepairedCall['arguments']): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === repaired;
  } catch {
    return false;
  }
}

/** Every choice judged; the violations of all of them (prefixed by the choice when there are several). */
export function judgeCompletion(terms: ContractTerms, upstream: ChatCompletion, completion: ChatCompletion, budget: RepairBudget, trimExtra: boolean): JudgedCompletion {
  const violations: Violation[] = [];
  const repairs: ArgumentsRepair[] = [];
  let trimmed = 0;
  let changed = false;
  const several = completion.choices.length > 1;
  const choices = completion.choices.map((choice, index) => {
    const judged = judgeMessage(terms, upstream.choices[index]?.message, choice.message, budget, trimExtra);
    trimmed += judged.trimmed;
    repairs.push(...judged.repairs);
    for (const violation of judged.violations) violations.push(several ? { ...violation, message: `choice ${choice.index}: ${violation.message}` } : violation);
    if (judged.message === choice.message) return choice;
    changed = true;
    return { ...choice, message: judged.message };
  });
  return { violations, completion: changed ? { ...completion, choices } : completion, trimmed, repairs };
}
