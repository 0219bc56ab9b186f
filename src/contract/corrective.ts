import type { AssistantMessage, ChatMessage, ChatRequest } from '../api/chat-types.js';
import type { Violation } from './check.js';
import type { ContractTerms } from './terms.js';

// The re-ask: the original request, the model's answer, and one short corrective message that
// says exactly what was wrong and what to do instead. A call in the answer is answered by a short
// tool message first (every upstream wants each call followed by its result), saying it was not run.

export const NOT_RUN = 'Not run: this call broke the request rules (see the next message).';

/** The request to send again: the original, the model's answer, its calls marked as not run, the corrective message. */
export function reaskRequest(original: ChatRequest, answer: AssistantMessage, violations: readonly Violation[], terms: ContractTerms): ChatRequest {
  const calls = answer.tool_calls ?? [];
  const said = typeof answer.content === 'string' && answer.content !== '';
  // An answer with neither text nor calls is left out: `{"role":"assistant","content":null}` is refused by strict upstreams.
  const messages: ChatMessage[] = said || calls.length > 0 ? [...original.messages, { role: 'assistant', content: said ? answer.content : null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }] : [...original.messages];
  for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: NOT_RUN });
  messages.push({ role: 'user', content: correctiveText(violations, terms) });
  return { ...original, messages };
}

/** "Your last answer broke this request's rules: …. Answer again: …." */
export function correctiveText(violations: readonly Violation[], terms: ContractTerms): string {
  const what = violations.map((violation) => violation.message).join('; ');
  return `Your last answer broke this request's rules: ${what}. Answer again: ${instruction(violations, terms)}.`;
}

function instruction(violations: readonly Violation[], terms: ContractTerms): string {
  const rule = terms.rule;
  const steps: string[] = [];
  if (rule.kind === 'none') steps.push('reply in plain text and call no tool');
  else if (rule.kind === 'only') steps.push(`call ${rule.names.map((name) => `"${name}"`).join(' or ')}${rule.required ? '' : ' or no tool'}`);
  else if (rule.kind === 'required') steps.push('call at least one of the declared tools');
  if (terms.singleCall && rule.kind !== 'none') steps.push(rule.kind === 'required' || (rule.kind === 'only' && rule.required) ? 'make exactly one call' : 'make at most one call');
  if (violations.some((violation) => violation.kind === 'invalid_arguments')) steps.push('give arguments that match the tool\'s parameters schema exactly');
  if (violations.some((violation) => violation.kind === 'undeclared_tool') && rule.kind !== 'none') steps.push('use only the declared tools');
  return steps.length > 0 ? steps.join(', ') : 'follow these rules';
}
