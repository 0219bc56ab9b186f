import { createHash } from 'node:crypto';
import type { ToolChoice, ToolDefinition } from '../api/chat-types.js';
import { errors } from '../errors.js';
import type { Finding } from '../repair/types.js';
import { compileLinear } from '../toolcalls/linear-regexp.js';
import { isRecord, type ResponseTool } from '../api/responses-types.js';

// The Responses tools on the chat bridge (docs/responses.md, "Tool types on the bridge"):
// - `function`: a chat function, as before;
// - `namespace` (Codex's multi_agent_v1, each MCP server): its function and custom tools flattened
//   into chat functions named `<namespace>__<name>`; a name that is already taken gets `_` + 8+ hex
//   characters of SHA-256(namespace NUL name), so names in different namespaces never collide. The
//   upstream step then encodes names an upstream does not allow (src/toolcalls/name-encoding.ts);
// - `custom` (freeform, Codex's apply_patch): a chat function with one string parameter `input`;
//   a `regex` grammar becomes that parameter's `pattern` (full match), which the contract checks
//   with RE2 (src/contract/arguments.ts), when RE2 can express it and it is at most 4 KB; a `lark`
//   grammar cannot be checked in linear time and is only shown to the model in the description;
// - everything else (web_search, file_search, image_generation, code_interpreter, mcp, tool_search,
//   computer_use_preview, local_shell, shell, apply_patch, …) is left out of the upstream request,
//   with an advisory `hosted_tool_omitted` finding; a tool_choice naming one is a 400.
// The map from chat names back to what the client declared turns calls into `function_call` items
// with their `namespace` or `custom_tool_call` items (from-chat.ts, events.ts).

/** The one parameter of an emulated custom tool. */
export const CUSTOM_INPUT = 'input';
/** Longest regex grammar checked as a `pattern`. */
export const MAX_GRAMMAR_PATTERN_CHARS = 4_096;
const SEPARATOR = '__';
const HASH_LENGTH = 8;

export interface DeclaredTool {
  kind: 'function' | 'custom';
  name: string;
  namespace?: string;
}

export interface BridgedTools {
  /** The chat tools, in declaration order. */
  tools: ToolDefinition[];
  /** Chat name → what the client declared. */
  byChatName: ReadonlyMap<string, DeclaredTool>;
  /** The chat name of a declared tool (a call in the history); undeclared ones are joined the same way. */
  chatName(name: string, namespace?: string): string;
  /** Advisory findings: the tools left out. */
  findings: Finding[];
}

const key = (name: string, namespace?: string): string => `${namespace ?? ''}\u0000${name}`;

function joined(name: string, namespace?: string): string {
  return namespace === undefined || namespace === '' ? name : `${namespace}${SEPARATOR}${name}`;
}

export function bridgeTools(tools: readonly ResponseTool[], provider: string): BridgedTools {
  const byKey = new Map<string, string>();
  const byChatName = new Map<string, DeclaredTool>();
  const findings: Finding[] = [];
  const out: ToolDefinition[] = [];
  // Top-level names are the client's own: they are taken first, whatever the order.
  const taken = new Set(tools.filter((tool) => (tool.type === 'function' || tool.type === 'custom') && typeof tool.name === 'string').map((tool) => String(tool.name)));

  const add = (tool: Record<string, unknown>, namespace: string | undefined): void => {
    const name = String(tool.name);
    const kind = tool.type === 'custom' ? 'custom' : 'function';
    let chat = joined(name, namespace);
    if (namespace !== undefined) {
      if (byKey.has(key(name, namespace))) return;
      for (let extra = 0; taken.has(chat) && extra <= 24; extra += 4) chat = `${joined(name, namespace)}_${hashOf(name, namespace, HASH_LENGTH + extra)}`;
      taken.add(chat);
    }
    byKey.set(key(name, namespace), chat);
    byChatName.set(chat, { kind, name, ...(namespace !== undefined ? { namespace } : {}) });
    out.push(kind === 'custom' ? customFunction(chat, tool) : chatFunction(chat, tool, namespace));
  };
  const omit = (type: string, param: string, index: number): void => {
    findings.push({ kind: 'hosted_tool_omitted', index, advisory: true, detail: `${param}: a '${type}' tool is not a function provider '${provider}' can be given: left out of the upstream request` });
  };

  tools.forEach((tool, index) => {
    if ((tool.type === 'function' || tool.type === 'custom') && typeof tool.name === 'string') add(tool, undefined);
    else if (tool.type === 'namespace' && typeof tool.name === 'string' && Array.isArray(tool.tools)) {
      const namespace = tool.name;
      tool.tools.forEach((inner: unknown, at) => {
        if (isRecord(inner) && (inner.type === 'function' || inner.type === 'custom') && typeof inner.name === 'string') add(inner, namespace);
        else omit(isRecord(inner) ? String(inner.type) : typeof inner, `tools[${index}].tools[${at}]`, index);
      });
    } else omit(String(tool.type), `tools[${index}]`, index);
  });

  return {
    tools: out,
    byChatName,
    chatName: (name, namespace) => byKey.get(key(name, namespace === '' ? undefined : namespace)) ?? joined(name, namespace),
    findings,
  };
}

function hashOf(name: string, namespace: string, length: number): string {
  return createHash('sha256').update(`${namespace}\u0000${name}`).digest('hex').slice(0, length);
}

function chatFunction(chat: string, tool: Record<string, unknown>, namespace: string | undefined): ToolDefinition {
  const fn: ToolDefinition['function'] = { name: chat };
  if (typeof tool.description === 'string') fn.description = tool.description;
  else if (namespace !== undefined) fn.description = `${tool.name as string} (${namespace})`;
  fn.parameters = isRecord(tool.parameters) ? tool.parameters : { type: 'object', properties: {} };
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

/** A custom tool as a function of one string; a checkable regex grammar as its pattern. */
function customFunction(chat: string, tool: Record<string, unknown>): ToolDefinition {
  const format = isRecord(tool.format) ? tool.format : undefined;
  const grammar = format?.type === 'grammar' && typeof format.definition === 'string' ? { syntax: String(format.syntax), definition: format.definition } : undefined;
  const input: Record<string, unknown> = { type: 'string', description: 'The raw input of the tool, as plain text (not JSON).' };
  const pattern = grammar?.syntax === 'regex' ? patternOf(grammar.definition) : undefined;
  if (pattern !== undefined) input.pattern = pattern;
  let description = typeof tool.description === 'string' ? tool.description : '';
  if (grammar) description += `${description === '' ? '' : '\n\n'}The \`${CUSTOM_INPUT}\` must follow this ${grammar.syntax} grammar:\n${grammar.definition}`;
  const fn: ToolDefinition['function'] = {
    name: chat,
    parameters: { type: 'object', properties: { [CUSTOM_INPUT]: input }, required: [CUSTOM_INPUT], additionalProperties: false },
  };
  if (description !== '') fn.description = description;
  return { type: 'function', function: fn };
}

/** `^(?:regex)$` when RE2 (linear time) can run it and it is small enough; else not checked. */
export function patternOf(definition: string): string | undefined {
  if (definition.length > MAX_GRAMMAR_PATTERN_CHARS) return undefined;
  const pattern = `^(?:${definition})$`;
  return compileLinear(pattern) ? pattern : undefined;
}

/** The custom tool's input from the emulated call's arguments (the raw text when they are not `{input: string}`). */
export function customInputOf(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (isRecord(parsed) && typeof parsed[CUSTOM_INPUT] === 'string') return parsed[CUSTOM_INPUT];
  } catch {
    // not JSON: the model wrote the input itself
  }
  return args;
}

/** A Responses tool_choice → chat; naming a tool the bridge left out is a 400. */
export function bridgeToolChoice(choice: string | Record<string, unknown>, bridged: BridgedTools, provider: string, lenient = false): ToolChoice {
  if (typeof choice === 'string') return choice as ToolChoice;
  if ((choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string') {
    const namespace = typeof choice.namespace === 'string' ? choice.namespace : undefined;
    return { type: 'function', function: { name: bridged.chatName(choice.name, namespace) } };
  }
  if (choice.type === 'allowed_tools') return allowedTools(choice, bridged);
  if (lenient) return 'auto';
  throw errors.invalidRequest(
    `tool_choice names a '${String(choice.type)}' tool, which provider '${provider}' cannot run: toolgate leaves such tools out of bridged requests (docs/responses.md).`,
    'tool_choice',
    'unsupported_tool_type',
  );
}

/**
 * Responses `{type: "allowed_tools", mode, tools: [{type: "function" | "custom", name, namespace?}]}`
 * in chat's words, `{type: "allowed_tools", allowed_tools: {mode, tools: [{type: "function",
 * function: {name}}]}}` with the chat names: the list goes on, for the upstream and for the contract
 * (an upstream that refuses the field has it left out, and the contract still holds the answer to
 * the list: docs/contract.md). Tools the bridge left out are left out of the list too.
 */
function allowedTools(choice: Record<string, unknown>, bridged: BridgedTools): ToolChoice {
  const tools: Array<Record<string, unknown>> = [];
  for (const tool of Array.isArray(choice.tools) ? (choice.tools as unknown[]) : []) {
    if (!isRecord(tool) || (tool.type !== 'function' && tool.type !== 'custom')) continue;
    const name = isRecord(tool.function) ? tool.function.name : tool.name;
    if (typeof name !== 'string') continue;
    const namespace = typeof tool.namespace === 'string' ? tool.namespace : undefined;
    tools.push({ type: 'function', function: { name: bridged.chatName(name, namespace) } });
  }
  return { type: 'allowed_tools', allowed_tools: { mode: choice.mode === 'required' ? 'required' : 'auto', tools } };
}
