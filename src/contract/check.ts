import type { RepairBudget } from '../util/bounded-json.js';
import { checkArguments, type ArgumentsRepair } from './arguments.js';
import { CUSTOM_TOOL, type ContractTerms } from './terms.js';

// Checks one answer (one choice: its calls, in order) against the request's terms. Pure: the same
// answer and terms give the same violations. Names are the client's (decoded and aliased by the
// normalizer); arguments are the upstream's own text where it wrote structured calls.

export const VIOLATION_KINDS = ['tool_choice_none', 'tool_required', 'wrong_tool', 'parallel_calls', 'undeclared_tool', 'invalid_arguments'] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

export interface Violation {
  kind: ViolationKind;
  /** One short sentence saying exactly what was wrong. */
  message: string;
  /** The request field whose rule was broken. */
  param: 'tool_choice' | 'parallel_tool_calls' | 'tools';
}

export interface AnswerCall {
  name: string;
  arguments: string;
}

/** A call whose arguments the check accepted only after a repair that cannot change meaning. */
export interface RepairedCall {
  /** The call's position in the answer. */
  index: number;
  /** The repaired arguments (JSON object text). */
  arguments: string;
  repairs: ArgumentsRepair[];
}

export interface CheckedAnswer {
  violations: Violation[];
  repaired: RepairedCall[];
}

export function checkAnswer(terms: ContractTerms, calls: readonly AnswerCall[], budget: RepairBudget): CheckedAnswer {
  const violations: Violation[] = [];
  const rule = terms.rule;
  const names = calls.map((call) => call.name);
  if (rule.kind === 'none' && calls.length > 0) {
    violations.push({ kind: 'tool_choice_none', param: 'tool_choice', message: `tool_choice is "none", but the answer called ${list(names)}` });
  }
  if (calls.length === 0 && (rule.kind === 'required' || (rule.kind === 'only' && rule.required))) {
    const which = rule.kind === 'only' ? list(rule.names) : 'a tool';
    violations.push({ kind: 'tool_required', param: 'tool_choice', message: `tool_choice requires a call to ${which}, but the answer called no tool` });
  }
  if (rule.kind === 'only') {
    const wrong = names.filter((name) => !rule.names.includes(name));
    if (wrong.length > 0) violations.push({ kind: 'wrong_tool', param: 'tool_choice', message: `tool_choice allows only ${list(rule.names)}, but the answer called ${list(wrong)}` });
  }
  if (terms.singleCall && calls.length > 1) {
    violations.push({ kind: 'parallel_calls', param: 'parallel_tool_calls', message: `parallel_tool_calls is false, but the answer made ${calls.length} calls` });
  }
  const undeclared = names.filter((name) => !terms.tools.has(name));
  if (undeclared.length > 0) {
    violations.push({ kind: 'undeclared_tool', param: 'tools', message: `${list(unique(undeclared))} ${undeclared.length === 1 ? 'is' : 'are'} not among the declared tools${declaredList(terms)}` });
  }
  const repaired: RepairedCall[] = [];
  calls.forEach((call, index) => {
    if (!terms.tools.has(call.name)) return;
    const schema = terms.tools.get(call.name);
    // A custom tool's input is free text (or text in its grammar): nothing the contract can read.
    if (schema === CUSTOM_TOOL) return;
    const verdict = checkArguments(call.arguments, schema, budget);
    if (!verdict.valid) violations.push({ kind: 'invalid_arguments', param: 'tools', message: `the arguments of ${call.name} do not match its parameters schema: ${verdict.problems.join('; ')}` });
    else if (verdict.repairs.length > 0) repaired.push({ index, arguments: verdict.arguments, repairs: verdict.repairs });
  });
  return { violations, repaired };
}

/** Quoted names, the first few: "get_time", "a" and "b". */
function list(names: readonly string[]): string {
  const distinct = unique(names);
  const quoted = distinct.slice(0, 8).map((name) => `"${name.slice(0, 64)}"`);
  if (distinct.length > 8) quoted.push('…');
  return quoted.length <= 1 ? (quoted[0] ?? 'nothing') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

function declaredList(terms: ContractTerms): string {
  return terms.tools.size === 0 ? ' (none are declared)' : ` (${list([...terms.tools.keys()])})`;
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}
