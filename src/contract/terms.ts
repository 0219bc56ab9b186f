import type { ChatRequest, ToolChoice } from '../api/chat-types.js';
import { isRecord } from '../is-record.js';
import { customToolName } from '../api/custom-calls.js';

// What a chat request allows its answer, read only from the chat request's own fields
// (`tools`, `tool_choice`, `parallel_tool_calls`): every front door (chat, the Responses bridge,
// others that map onto chat) is held to the same terms.

/** Which calls the answer may (or must) make. */
export type CallRule =
  /** Any declared tool, or none (`auto`, absent, or an unknown word passed on for the upstream to judge). */
  | { kind: 'auto' }
  /** No calls at all. */
  | { kind: 'none' }
  /** At least one call (to a declared tool). */
  | { kind: 'required' }
  /** Calls only to these tools; `required`: at least one (a named function, `allowed_tools` mode required). */
  | { kind: 'only'; names: readonly string[]; required: boolean };

export interface ContractTerms {
  rule: CallRule;
  /** `parallel_tool_calls: false`: at most one call per answer. */
  singleCall: boolean;
  /** The declared tools by name, with their `parameters` schema (undefined: no schema; CUSTOM_TOOL: a custom tool). */
  tools: ReadonlyMap<string, unknown>;
}

/** The `tools` value of a declared custom tool: its input is free text, not checked against a schema. */
export const CUSTOM_TOOL: unique symbol = Symbol('custom tool');

/**
 * The terms of a (repaired) chat request, or undefined when it has nothing to enforce: no tools
 * declared and no tool_choice (an answer to such a request is not checked, and costs nothing).
 */
export function termsOf(request: Pick<ChatRequest, 'tools' | 'tool_choice'> & { parallel_tool_calls?: unknown }): ContractTerms | undefined {
  const declared = request.tools ?? [];
  if (declared.length === 0 && request.tool_choice === undefined) return undefined;
  const tools = new Map<string, unknown>();
  for (const tool of declared) {
    if (tool.type === 'function' && typeof tool.function?.name === 'string') tools.set(tool.function.name, tool.function.parameters);
    const custom = customToolName(tool);
    if (custom !== undefined) tools.set(custom, CUSTOM_TOOL);
  }
  return { rule: ruleOf(request.tool_choice), singleCall: request.parallel_tool_calls === false, tools };
}

function ruleOf(choice: ToolChoice | undefined): CallRule {
  if (choice === 'none') return { kind: 'none' };
  if (choice === 'required') return { kind: 'required' };
  if (!isRecord(choice)) return { kind: 'auto' };
  if (choice.type === 'function' && isRecord(choice.function) && typeof choice.function.name === 'string') {
    return { kind: 'only', names: [choice.function.name], required: true };
  }
  if (choice.type === 'custom' && isRecord(choice.custom) && typeof choice.custom.name === 'string') {
    return { kind: 'only', names: [choice.custom.name], required: true };
  }
  if (choice.type === 'allowed_tools' && isRecord(choice.allowed_tools)) {
    const spec = choice.allowed_tools;
    const names: string[] = [];
    for (const tool of Array.isArray(spec.tools) ? spec.tools : []) {
      const name = isRecord(tool) ? (isRecord(tool.function) ? tool.function.name : isRecord(tool.custom) ? tool.custom.name : tool.name) : undefined;
      if (typeof name === 'string') names.push(name);
    }
    return { kind: 'only', names, required: spec.mode === 'required' };
  }
  return { kind: 'auto' };
}

/**
 * Why no answer could keep these terms, or undefined when one can: a call is required but no tool it
 * may name is declared (`tool_choice: "required"` without tools, a named function that is not among
 * them). That is the client's mistake, answered 400 before any upstream call, as OpenAI answers it.
 */
export function unsatisfiable(terms: ContractTerms): string | undefined {
  const { rule, tools } = terms;
  if (rule.kind === 'required' && tools.size === 0) return `Invalid value for 'tool_choice': "required" needs at least one declared tool in 'tools'.`;
  if (rule.kind === 'only' && rule.required && !rule.names.some((name) => tools.has(name))) {
    const named = rule.names.length === 0 ? 'no tool' : rule.names.map((name) => `'${name}'`).join(', ');
    return `Invalid value for 'tool_choice': it requires a call to ${named}, which is not among the declared tools.`;
  }
  return undefined;
}
