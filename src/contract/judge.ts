import type { AssistantMessage, ChatCompletion } from '../api/chat-types.js';
import type { RepairBudget } from '../repair/bounded-json.js';
import { checkAnswer, type AnswerCall, type Violation } from './check.js';
import type { ContractTerms } from './terms.js';

// An answer judged against the request's terms: its violations, and the answer as the client may
// get it: unchanged (arguments go on as the upstream sent them, docs/answers.md), but for extra
// calls dropped when the policy says `extraCalls: trim`.

export interface JudgedMessage {
  violations: Violation[];
  message: AssistantMessage;
  /** Calls dropped by the `trim` policy. */
  trimmed: number;
}

export interface JudgedCompletion {
  violations: Violation[];
  completion: ChatCompletion;
  trimmed: number;
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
    const text = sameCalls ? own[index]?.function?.arguments : undefined;
    return { name: call.function.name, arguments: typeof text === 'string' ? text : call.function.arguments };
  });
  const { violations } = checkAnswer(terms, answerCalls, budget);
  return { violations, message: trimmed > 0 ? { ...message, tool_calls: calls } : message, trimmed };
}

/** Every choice judged; the violations of all of them (prefixed by the choice when there are several). */
export function judgeCompletion(terms: ContractTerms, upstream: ChatCompletion, completion: ChatCompletion, budget: RepairBudget, trimExtra: boolean): JudgedCompletion {
  const violations: Violation[] = [];
  let trimmed = 0;
  let changed = false;
  const several = completion.choices.length > 1;
  const choices = completion.choices.map((choice, index) => {
    const judged = judgeMessage(terms, upstream.choices[index]?.message, choice.message, budget, trimExtra);
    trimmed += judged.trimmed;
    for (const violation of judged.violations) violations.push(several ? { ...violation, message: `choice ${choice.index}: ${violation.message}` } : violation);
    if (judged.message === choice.message) return choice;
    changed = true;
    return { ...choice, message: judged.message };
  });
  return { violations, completion: changed ? { ...completion, choices } : completion, trimmed };
}
