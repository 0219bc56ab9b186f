import type { RawChatRequest, FunctionDefinition, JsonObject, ToolChoice, ToolDefinition } from '../api/chat-types.js';
import { errors } from '../errors.js';
import type { Finding, RepairPass } from './types.js';
import { derivedOnce } from './request-memo.js';
import { finding, isRecord, nonEmptyString } from './util.js';

// Pass 7: tool definitions in the shapes frameworks send by mistake, turned into chat tools:
// AIFunction dicts ({type:"ai_function", name, description, input_model}), legacy `functions`
// (+ `function_call`), bare {name, description, parameters}, flat Responses {type:"function", name},
// Anthropic-style {name, input_schema}. Non-function tools (web_search, custom…) pass through.
// What no shape can fix is a 400 before anything goes upstream (see checkDeclared): a name over
// MAX_TOOL_NAME_LENGTH, `parameters` that is not a schema object, two tools with one name.
// Names are not held to OpenAI's [a-zA-Z0-9_-]{1,64}: name-encoding.ts encodes them per upstream.

/** Longest declared tool name (characters). OpenAI's own limit is 64; longer names get encoded. */
export const MAX_TOOL_NAME_LENGTH = 256;

const EMPTY_SCHEMA: JsonObject = { type: 'object', properties: {} };
const SCHEMA_KEYS = ['type', 'properties', '$schema', 'anyOf', 'oneOf', 'allOf', '$ref', '$defs'];

interface Converted {
  tool: unknown;
  name: string | null;
  note: string | null;
}

function looksLikeSchema(value: unknown): value is JsonObject {
  return isRecord(value) && SCHEMA_KEYS.some((key) => key in value);
}

/** `input_model` may be a JSON schema, a JSON string of one, or a class repr: keep what is usable. */
function schemaFromModel(model: unknown): { schema: JsonObject; usable: boolean } {
  if (looksLikeSchema(model)) return { schema: model, usable: true };
  if (typeof model === 'string') {
    try {
      const parsed: unknown = JSON.parse(model);
      if (looksLikeSchema(parsed)) return { schema: parsed, usable: true };
    } catch {
      // a class repr such as "<class 'WeatherArgs'>": nothing to learn from it
    }
  }
  return { schema: EMPTY_SCHEMA, usable: model === undefined || model === null };
}

function wrap(raw: Record<string, unknown>, parameters: unknown): ToolDefinition {
  const fn: FunctionDefinition = { name: raw.name as string };
  if (typeof raw.description === 'string') fn.description = raw.description;
  if (isRecord(parameters)) fn.parameters = parameters;
  if (typeof raw.strict === 'boolean' || raw.strict === null) fn.strict = raw.strict;
  return { type: 'function', function: fn };
}

function convertTool(raw: unknown, list: 'tools' | 'functions', index: number): Converted {
  if (!isRecord(raw)) {
    const param = paramOf(list, index);
    throw errors.invalidRequest(`Invalid tool at ${param}: expected an object, got ${JSON.stringify(raw) ?? 'undefined'}.`, param);
  }
  const type = raw.type;
  if (type === 'function' && isRecord(raw.function)) {
    if (!nonEmptyString(raw.function.name)) {
      const param = paramOf(list, index);
      throw errors.invalidRequest(`Invalid tool at ${param}: function.name is missing.`, `${param}.function.name`);
    }
    checkDeclared(raw.function.name, raw.function.parameters, list, index, '.function');
    return { tool: raw, name: raw.function.name, note: null };
  }
  const functionLike = type === undefined || type === 'function' || type === 'ai_function' || 'input_model' in raw;
  if (!functionLike) return { tool: raw, name: null, note: null };
  const param = paramOf(list, index);
  if (!nonEmptyString(raw.name)) {
    throw errors.invalidRequest(
      `Invalid tool at ${param}: no function name (looked for function.name and name).`,
      `${param}.function.name`,
    );
  }
  checkDeclared(raw.name, raw.parameters ?? raw.input_schema, list, index, '');
  if ('input_model' in raw && !isRecord(raw.parameters)) {
    const { schema, usable } = schemaFromModel(raw.input_model);
    const how = usable ? 'input_model used as parameters' : 'input_model is not a JSON schema, parameters left open';
    return { tool: wrap(raw, schema), name: raw.name, note: `AIFunction-style tool '${raw.name}' converted (${how})` };
  }
  const parameters = isRecord(raw.parameters) ? raw.parameters : raw.input_schema;
  const shape = type === 'function' ? 'flat Responses-style' : 'bare';
  return { tool: wrap(raw, parameters), name: raw.name, note: `${shape} tool '${raw.name}' wrapped in {type:"function", function}` };
}

/** The 400s no repair can avoid: the upstream would refuse the request, or misread the tool. */
function checkDeclared(name: string, parameters: unknown, list: 'tools' | 'functions', index: number, within: string): void {
  if (name.length > MAX_TOOL_NAME_LENGTH) throw errors.toolNameTooLong(`${paramOf(list, index)}${within}.name`, name.length, MAX_TOOL_NAME_LENGTH);
  if (parameters !== undefined && parameters !== null && !isRecord(parameters)) {
    const param = `${paramOf(list, index)}${within}`;
    const got = Array.isArray(parameters) ? 'an array' : `${typeof parameters} ${clipJson(parameters)}`;
    throw errors.invalidToolParameters(`${param}.parameters`, got);
  }
}

function clipJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function convertChoice(choice: unknown): ToolChoice | undefined {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isRecord(choice) && nonEmptyString(choice.name)) return { type: 'function', function: { name: choice.name } };
  return undefined;
}

interface Normalized {
  request: RawChatRequest;
  findings: Finding[];
  tools: ToolDefinition[];
  /** `tools` by name, made at the first declaredToolsOnce (this object is the request's own memo). */
  byName?: ReadonlyMap<string, ToolDefinition>;
}

/** `tools[i]` / `functions[i]`: built only for an error or a note, not for every tool of every request. */
function paramOf(list: 'tools' | 'functions', index: number): string {
  return `${list}[${index}]`;
}

function normalize(request: RawChatRequest): Normalized {
  const rawTools: unknown = request.tools;
  const rawFunctions: unknown = request.functions;
  const hasLegacyChoice = 'function_call' in request;
  const choice: unknown = request.tool_choice;
  const flatChoice = isRecord(choice) && choice.type === 'function' && !isRecord(choice.function) && nonEmptyString(choice.name);
  if (rawTools === undefined && rawFunctions === undefined && !hasLegacyChoice && !flatChoice) {
    return { request, findings: [], tools: [] };
  }

  const findings: Finding[] = [];
  const seen = new Set<string>();
  const out: unknown[] = [];
  const declared: ToolDefinition[] = [];
  let changed = rawFunctions !== undefined || hasLegacyChoice || flatChoice;
  const add = (raw: unknown, list: 'tools' | 'functions', index: number): void => {
    const converted = convertTool(raw, list, index);
    if (converted.name !== null) {
      if (seen.has(converted.name)) throw errors.duplicateToolName(converted.name, paramOf(list, index));
      seen.add(converted.name);
      declared.push(converted.tool as ToolDefinition);
    }
    if (converted.note !== null) {
      changed = true;
      findings.push(finding('tool_definition_converted', -1, `${paramOf(list, index)}: ${converted.note}`));
    }
    out.push(converted.tool);
  };
  // As forEach walked them: holes of a sparse array (never in parsed JSON) are skipped.
  if (Array.isArray(rawTools)) for (let i = 0; i < rawTools.length; i++) if (i in rawTools) add(rawTools[i], 'tools', i);
  if (Array.isArray(rawFunctions)) for (let i = 0; i < rawFunctions.length; i++) if (i in rawFunctions) add(rawFunctions[i], 'functions', i);
  if (Array.isArray(rawTools) && rawTools.length === 0 && rawFunctions === undefined) changed = true;
  if (!changed) return { request, findings: [], tools: declared };

  const next: RawChatRequest = { ...request };
  delete next.functions;
  delete next.function_call;
  if (rawFunctions !== undefined) findings.push(finding('tool_definition_converted', -1, 'legacy `functions` moved to `tools`'));
  if (hasLegacyChoice && next.tool_choice === undefined) {
    const choice = convertChoice(request.function_call);
    if (choice !== undefined) next.tool_choice = choice;
    findings.push(finding('tool_choice_converted', -1, `legacy function_call ${JSON.stringify(request.function_call)} → tool_choice`));
  } else if (hasLegacyChoice) {
    findings.push(finding('tool_choice_converted', -1, 'legacy function_call dropped: tool_choice is already set'));
  }
  if (flatChoice) {
    const name = choice.name as string;
    next.tool_choice = { type: 'function', function: { name } };
    findings.push(finding('tool_choice_converted', -1, `flat tool_choice for '${name}' wrapped`));
  }
  if (out.length > 0) {
    next.tools = out as ToolDefinition[];
  } else if (Array.isArray(rawTools) || rawFunctions !== undefined) {
    // OpenAI rejects an empty tools array, and a tool_choice without tools.
    delete next.tools;
    delete next.tool_choice;
    findings.push(finding('empty_tools_removed', -1, 'empty tools array removed'));
  }
  return { request: next, findings, tools: declared };
}

// The pass and the declared-tools lookup read the same request object (the client's, before any
// other pass copied it): its normalization runs once per request, not once for each.
const NORMALIZED = Symbol('normalized tools');

function normalizeOnce(request: RawChatRequest): Normalized {
  return derivedOnce(request, NORMALIZED, normalize);
}

export const toolDefinitionsPass: RepairPass = {
  name: 'tool-definitions',
  run(request) {
    const { request: next, findings } = normalizeOnce(request);
    // The findings array is the pass's own each time: the kept normalization stays as it was.
    return { request: next, findings: findings.length === 0 ? [] : [...findings] };
  },
};

/**
 * Declared function tools by name, after the same normalization the pass applies (so it agrees
 * with what goes upstream). Throws the catalogue's 400 on duplicate names or nameless tools.
 */
export function declaredToolsOf(request: RawChatRequest): Map<string, ToolDefinition> {
  return byName(normalizeOnce(request).tools);
}

/**
 * declaredToolsOf, made once per request object (read-only: shared by the repair step and the
 * upstream call, which read the same request when repair changed nothing). Kept on the request's
 * normalization memo: one memo slot per request, not two.
 */
export function declaredToolsOnce(request: RawChatRequest): ReadonlyMap<string, ToolDefinition> {
  const normalized = normalizeOnce(request);
  return (normalized.byName ??= byName(normalized.tools));
}

function byName(tools: readonly ToolDefinition[]): Map<string, ToolDefinition> {
  const map = new Map<string, ToolDefinition>();
  for (const tool of tools) map.set(tool.function.name, tool);
  return map;
}
