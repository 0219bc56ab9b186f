import type { ChatRequest, ToolDefinition } from '../../api/chat-types.js';
import { convertParameters, isJsonObject, type ArgFix } from './schema.js';
import type { GeminiFunctionDeclaration, GeminiGenerationConfig, GeminiTool, GeminiToolConfig } from './wire-types.js';

// Request-level translation besides messages: tools, tool_choice and sampling/output options.

export interface ToolsResult {
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  /** Per function name: how to map rewritten enum values back in the model's arguments. */
  fixes: Map<string, ArgFix>;
}

export function toTools(request: ChatRequest): ToolsResult {
  const fixes = new Map<string, ArgFix>();
  let functions = (request.tools ?? []).filter((t): t is ToolDefinition => t?.type === 'function' && isJsonObject(t.function));
  const choice = request.tool_choice;
  let mode: 'AUTO' | 'ANY' | 'NONE' | undefined;
  let allowed: string[] | undefined;

  if (choice === 'auto') mode = 'AUTO';
  else if (choice === 'none') mode = 'NONE';
  else if (choice === 'required') mode = 'ANY';
  else if (isJsonObject(choice) && choice.type === 'function' && isJsonObject(choice.function) && typeof choice.function.name === 'string') {
    mode = 'ANY';
    allowed = [choice.function.name];
  } else if (isJsonObject(choice) && choice.type === 'allowed_tools' && isJsonObject(choice.allowed_tools)) {
    const spec = choice.allowed_tools;
    const names = (Array.isArray(spec.tools) ? spec.tools : [])
      .map((t) => (isJsonObject(t) && isJsonObject(t.function) ? t.function.name : isJsonObject(t) ? t.name : undefined))
      .filter((n): n is string => typeof n === 'string');
    // allowedFunctionNames is only valid with ANY; for "auto" the declarations are narrowed instead.
    if (spec.mode === 'required') {
      mode = 'ANY';
      allowed = names;
    } else {
      mode = 'AUTO';
      functions = functions.filter((t) => names.includes(t.function.name));
    }
  }
  if (functions.length === 0) return { fixes };

  const declarations = functions.map((tool): GeminiFunctionDeclaration => {
    const { parameters, fix } = convertParameters(tool.function.parameters);
    if (fix) fixes.set(tool.function.name, fix);
    return { name: tool.function.name, description: tool.function.description ?? '', ...(parameters ? { parameters } : {}) };
  });
  const toolConfig = mode ? { functionCallingConfig: { mode, ...(allowed && allowed.length > 0 ? { allowedFunctionNames: allowed } : {}) } } : undefined;
  return { tools: [{ functionDeclarations: declarations }], ...(toolConfig ? { toolConfig } : {}), fixes };
}

/** The Gemini major version in a model id (`gemini-2.5-flash` → 2), or null for aliases like `gemini-flash-latest`. */
export function geminiMajor(model: string): number | null {
  const match = /gemini-(\d+)(?:[.-]|$)/i.exec(model);
  return match ? Number(match[1]) : null;
}

const BUDGETS: Record<string, number> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };
const LEVELS: Record<string, string> = { none: 'minimal', minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'high' };

export function toGenerationConfig(request: ChatRequest, model: string): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {};
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const set = <K extends keyof GeminiGenerationConfig>(key: K, value: GeminiGenerationConfig[K] | undefined) => {
    if (value !== undefined) config[key] = value;
  };
  set('temperature', num(request.temperature));
  set('topP', num(request.top_p));
  set('topK', num(request.top_k));
  set('maxOutputTokens', num(request.max_completion_tokens) ?? num(request.max_tokens));
  set('candidateCount', num(request.n));
  set('seed', num(request.seed));
  set('presencePenalty', num(request.presence_penalty));
  set('frequencyPenalty', num(request.frequency_penalty));
  const stop = typeof request.stop === 'string' ? [request.stop] : Array.isArray(request.stop) ? request.stop.filter((s): s is string => typeof s === 'string') : [];
  if (stop.length > 0) config.stopSequences = stop;

  const format = request.response_format;
  if (isJsonObject(format) && format.type === 'json_object') config.responseMimeType = 'application/json';
  if (isJsonObject(format) && format.type === 'json_schema' && isJsonObject(format.json_schema)) {
    config.responseMimeType = 'application/json';
    if (isJsonObject(format.json_schema.schema)) config.responseJsonSchema = toResponseJsonSchema(format.json_schema.schema);
  }

  const effort = typeof request.reasoning_effort === 'string' ? request.reasoning_effort : undefined;
  const major = geminiMajor(model);
  if (effort && major !== null && major < 3 && /2\.5/.test(model) && effort in BUDGETS) {
    config.thinkingConfig = { thinkingBudget: BUDGETS[effort] };
  } else if (effort && (major === null || major >= 3) && effort in LEVELS) {
    config.thinkingConfig = { thinkingLevel: LEVELS[effort] };
  }
  // A client that asked for reasoning gets Gemini's thought summaries, as reasoning_content.
  if (config.thinkingConfig && effort !== 'none' && effort !== 'minimal') config.thinkingConfig.includeThoughts = true;
  return Object.keys(config).length > 0 ? config : undefined;
}

// The JSON Schema keywords Gemini documents for responseJsonSchema; others are dropped.
const RESPONSE_KEYWORDS = new Set([
  '$id', '$defs', '$ref', '$anchor', 'type', 'format', 'title', 'description', 'enum', 'items', 'prefixItems',
  'minItems', 'maxItems', 'minimum', 'maximum', 'anyOf', 'oneOf', 'properties', 'additionalProperties', 'required', 'propertyOrdering',
]);

export function toResponseJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toResponseJsonSchema);
  if (!isJsonObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'const') out.enum = [value];
    if (!RESPONSE_KEYWORDS.has(key)) continue;
    if (key === 'properties' || key === '$defs') {
      out[key] = isJsonObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toResponseJsonSchema(v)])) : value;
    } else if (['items', 'prefixItems', 'anyOf', 'oneOf', 'additionalProperties'].includes(key)) {
      out[key] = toResponseJsonSchema(value);
    } else out[key] = value;
  }
  return out;
}
