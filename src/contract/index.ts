// The request's tool contract (docs/contract.md): terms read from the chat request, answers
// checked against them, the re-ask's corrective message. Pure: the pipeline decides what to do.
export { termsOf, unsatisfiable, type CallRule, type ContractTerms } from './terms.js';
export { checkAnswer, VIOLATION_KINDS, type AnswerCall, type CheckedAnswer, type Violation, type ViolationKind } from './check.js';
export { checkArguments, type ArgumentsRepair, type ArgumentsVerdict } from './arguments.js';
export { judgeCompletion, judgeMessage, type JudgedCompletion, type JudgedMessage } from './judge.js';
export { correctiveText, NOT_RUN, reaskRequest } from './corrective.js';
export { policyFor, type ContractPolicy } from './policy.js';
