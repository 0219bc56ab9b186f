import type { ChatCompletion, ChatRequest } from '../api/chat-types.js';
import { judgeCompletion } from '../contract/index.js';
import type { ResolvedModel } from '../routing/router.js';
import type { NormalizeReport } from '../toolcalls/normalize.js';
import { isCutOff } from '../toolcalls/normalize-decisions.js';
import type { ContractRun } from './contract-run.js';

// The contract for a JSON answer: judge it; while it breaks the contract and the policy allows,
// ask the same model again (the original request, its answer, one corrective message); then
// hand on the answer that complies, or once the re-asks ran out the last one with a warning
// (`reask`, the default, and `pass` at once), or under the strict policy (`error`) the contract error.

export interface JsonAnswer {
  /** The upstream's answer as it came (its structured calls' argument text is what is checked). */
  upstream: ChatCompletion;
  /** The normalized answer. */
  completion: ChatCompletion;
  report: NormalizeReport;
  promptMode: boolean;
  target: ResolvedModel;
  /** How long the call took (the next re-ask must fit in the deadline). */
  durationMs: number;
}

export async function keepJsonContract(
  run: ContractRun,
  first: JsonAnswer,
  askAgain: (request: ChatRequest) => Promise<JsonAnswer>,
): Promise<{ answer: JsonAnswer; warnings?: string; repairs?: string }> {
  let answer = first;
  for (;;) {
    // A cut-off answer (finish_reason length or content_filter) says so itself: its arguments are
    // never completed or judged as if they were whole (docs/answers.md).
    if (answer.completion.choices.some((choice) => isCutOff(choice.finish_reason))) return { answer };
    const judged = judgeCompletion(run.terms, answer.upstream, answer.completion, run.budget, run.trimExtra);
    answer = judged.completion === answer.completion ? answer : { ...answer, completion: judged.completion };
    if (judged.violations.length === 0) {
      run.complied(judged.trimmed);
      return { answer, warnings: run.trimWarning(), repairs: run.handedOn(judged.repairs) };
    }
    if (!run.violated(judged.violations, answer.completion.usage, judged.trimmed, answer.durationMs)) {
      const warnings = run.passWarnings(judged.violations);
      if (warnings === undefined) throw run.failure(judged.violations);
      return { answer, warnings: joinWarnings(run.trimWarning(), warnings), repairs: run.handedOn(judged.repairs) };
    }
    const message = answer.completion.choices[0]?.message ?? { role: 'assistant', content: null };
    try {
      answer = await askAgain(run.reaskRequest(message, judged.violations));
    } catch (error) {
      run.reaskFailed();
      throw error;
    }
  }
}

/** Two warning header values as one (either may be missing). */
export function joinWarnings(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  return b ? `${a},${b}` : a;
}
