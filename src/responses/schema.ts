import { z } from 'zod';
import { errors } from '../errors.js';
import { isRecord, type FunctionTool, type Item, type ResponseTool, type ResponsesRequest } from '../api/responses-types.js';

// `POST /v1/responses` validation: strict about what the gateway itself needs (400 naming the
// `param`, in OpenAI's wording), lenient about everything else. Unknown keys pass through, and
// item shapes the item-repair passes fix (missing `type`, odd content) are not rejected here.

const item = z.looseObject({});

const requestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(item)]).nullish(),
  instructions: z.union([z.string(), z.array(item)]).nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })]).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  text: z.looseObject({}).nullish(),
  reasoning: z.looseObject({}).nullish(),
  include: z.array(z.string()).nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  stream: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  user: z.string().nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  safety_identifier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  max_tool_calls: z.number().int().min(1).nullish(),
});

export function paramOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

function describe(issue: z.core.$ZodIssue): string {
  const param = paramOf(issue.path);
  if (issue.code === 'invalid_type' && issue.input === undefined) return `Missing required parameter: '${param}'.`;
  if (issue.code === 'too_small' && typeof issue.input === 'string') {
    return `Invalid '${param}': empty string. Expected a string with minimum length 1, but got an empty string instead.`;
  }
  if (issue.code === 'invalid_value' && param === 'tool_choice') {
    return `Invalid value: '${String(issue.input)}'. Supported values are: 'none', 'auto', and 'required'.`;
  }
  return `Invalid '${param}': ${issue.message}.`;
}

/** Validates a Responses body; throws the catalogue's 400 naming the field. Nulls mean absent. */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (!isRecord(body)) throw errors.invalidRequest('The request body must be a JSON object.', null, 'invalid_body');
  const result = requestSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    throw errors.invalidRequest(describe(issue), paramOf(issue.path) || null, missing ? 'missing_required_parameter' : 'invalid_value');
  }
  const parsed: Record<string, unknown> = { ...result.data };
  for (const [key, value] of Object.entries(parsed)) if (value === null || value === undefined) delete parsed[key];
  const input = parsed.input;
  parsed.input = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : ((input as Item[] | undefined) ?? []);
  if (Array.isArray(parsed.tools)) parsed.tools = (parsed.tools as Record<string, unknown>[]).map(flattenTool);
  if (isRecord(parsed.tool_choice)) parsed.tool_choice = flattenToolChoice(parsed.tool_choice);
  return parsed as ResponsesRequest;
}

/** Chat-shaped tools (`{type, function: {name, …}}`) become flat Responses tools; names are required. */
function flattenTool(tool: Record<string, unknown>, index: number): ResponseTool {
  if (tool.type !== 'function') return tool as ResponseTool;
  const inner = isRecord(tool.function) ? tool.function : undefined;
  const source = inner ?? tool;
  if (typeof source.name !== 'string' || source.name === '') {
    const param = inner ? `tools[${index}].function.name` : `tools[${index}].name`;
    throw errors.invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
  }
  if (!inner) return tool as FunctionTool;
  const flat: FunctionTool = { type: 'function', name: source.name };
  if (typeof source.description === 'string') flat.description = source.description;
  if (isRecord(source.parameters)) flat.parameters = source.parameters;
  if (typeof source.strict === 'boolean') flat.strict = source.strict;
  return flat;
}

/** `{type: "function", function: {name}}` (chat shape) → `{type: "function", name}`. */
function flattenToolChoice(choice: Record<string, unknown>): Record<string, unknown> {
  if (choice.type === 'function' && typeof choice.name !== 'string' && isRecord(choice.function) && typeof choice.function.name === 'string') {
    return { type: 'function', name: choice.function.name };
  }
  return choice;
}
