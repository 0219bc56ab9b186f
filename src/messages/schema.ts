import { z } from 'zod';
import { errors } from '../errors.js';
import { isRecord } from '../is-record.js';
import { paramOf } from '../responses/schema.js';
import type { MessagesRequest } from './types.js';

// `POST /v1/messages` validation: strict about what the gateway needs (model, max_tokens, roles,
// tool names, tool_choice), lenient about the rest. Unknown keys pass through (cache_control,
// container, mcp_servers, …); block shapes the repair passes fix are not rejected here. Nulls mean absent.

const block = z.union([z.looseObject({}), z.string()]);

const requestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant', 'system']), content: z.union([z.string(), z.array(block)]) })).min(1),
  system: z.union([z.string(), z.array(block)]).nullish(),
  tools: z.array(z.looseObject({ name: z.string().min(1), input_schema: z.looseObject({}).nullish() })).nullish(),
  tool_choice: z.looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().min(1).optional(), disable_parallel_tool_use: z.boolean().nullish() }).nullish(),
  stop_sequences: z.array(z.string()).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  top_k: z.number().int().min(0).nullish(),
  stream: z.boolean().nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  thinking: z.looseObject({ type: z.string() }).nullish(),
});

/** count_tokens takes the same body without `max_tokens`. */
const countSchema = requestSchema.extend({ max_tokens: z.number().int().min(1).nullish() });

/** Validates a Messages body; throws the catalogue's 400 naming the field (rendered in Anthropic's shape by the route). */
export function parseMessagesRequest(body: unknown, options: { countTokens?: boolean } = {}): MessagesRequest {
  if (!isRecord(body)) throw errors.invalidRequest('The request body must be a JSON object.', null, 'invalid_body');
  const result = (options.countTokens ? countSchema : requestSchema).safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const param = paramOf(issue.path);
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    throw errors.invalidRequest(missing ? `${param}: Field required` : `${param}: ${issue.message}`, param || null, missing ? 'missing_required_parameter' : 'invalid_value');
  }
  const parsed: Record<string, unknown> = { ...result.data };
  for (const [key, value] of Object.entries(parsed)) if (value === null || value === undefined) delete parsed[key];
  const choice = parsed.tool_choice as MessagesRequest['tool_choice'];
  if (choice?.type === 'tool' && choice.name === undefined) throw errors.invalidRequest('tool_choice.name: Field required', 'tool_choice.name', 'missing_required_parameter');
  return parsed as MessagesRequest;
}
