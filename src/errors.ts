// The one error catalogue. Every error toolgate returns is OpenAI-shaped:
// {error: {message, type, param, code}} with the status the catalogue gives.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'upstream_error'
  | 'timeout_error'
  | 'not_implemented_error';

/**
 * What failed, for the upstream side: the one input to src/resilience/failures.ts, which decides the
 * outcome label, retryability, breaker result and log level. Errors without a kind are the
 * client's own or the gateway's (client errors by status, internal otherwise).
 */
export type FailureKind = 'client_aborted' | 'timeout' | 'connect' | 'upstream_status' | 'upstream_auth' | 'upstream_bad_response' | 'circuit_open';

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
  readonly headers: Record<string, string>;
  readonly kind?: FailureKind;

  constructor(
    status: number,
    type: string,
    message: string,
    options: { param?: string | null; code?: string | null; headers?: Record<string, string>; kind?: FailureKind } = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.status = status;
    this.type = type;
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.headers = options.headers ?? {};
    if (options.kind) this.kind = options.kind;
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export const errors = {
  invalidRequest: (message: string, param: string | null = null, code: string | null = null) =>
    new GatewayError(400, 'invalid_request_error', message, { param, code }),
  invalidJson: (detail: string) =>
    new GatewayError(400, 'invalid_request_error', `We could not parse the JSON body of your request. (${detail})`, {
      code: 'invalid_json',
    }),
  unrepairableHistory: (message: string) =>
    new GatewayError(400, 'invalid_request_error', message, { param: 'messages', code: 'invalid_tool_history' }),
  duplicateToolName: (name: string, param: string) =>
    new GatewayError(400, 'invalid_request_error', `Duplicate tool name '${name}': every declared tool needs a unique name.`, {
      param,
      code: 'duplicate_tool_name',
    }),
  payloadTooLarge: (limitBytes: number) =>
    new GatewayError(413, 'invalid_request_error', `Request body is larger than the ${limitBytes} byte limit.`, {
      code: 'payload_too_large',
    }),
  unsupportedMediaType: (contentType: string) =>
    new GatewayError(415, 'invalid_request_error', `Unsupported Content-Type '${contentType}': send application/json.`, {
      code: 'unsupported_media_type',
    }),
  modelNotFound: (model: string) =>
    new GatewayError(404, 'invalid_request_error', `The model '${model}' does not exist or you do not have access to it.`, {
      param: 'model',
      code: 'model_not_found',
    }),
  // Raised by Node's HTTP parser before a request exists (src/http/server-timeouts.ts writes them to the socket).
  requestTimeout: (headersTimeoutMs: number, requestTimeoutMs: number) =>
    new GatewayError(
      408,
      'invalid_request_error',
      `The request was not received in time (headers within ${headersTimeoutMs} ms, the whole request within ${requestTimeoutMs} ms).`,
      { code: 'request_timeout' },
    ),
  headersTooLarge: () => new GatewayError(431, 'invalid_request_error', 'The request headers are too large.', { code: 'headers_too_large' }),
  malformedHttp: () => new GatewayError(400, 'invalid_request_error', 'Malformed HTTP request.', { code: 'bad_request' }),
  routeNotFound: (method: string, url: string) =>
    new GatewayError(404, 'invalid_request_error', `Unknown request URL: ${method} ${url}.`, { code: 'unknown_url' }),
  methodNotAllowed: (method: string, url: string) =>
    new GatewayError(405, 'invalid_request_error', `Method ${method} is not allowed for ${url}.`, {
      code: 'method_not_allowed',
    }),
  providerKeyMissing: (provider: string, envVar: string) =>
    new GatewayError(
      401,
      'authentication_error',
      `Provider '${provider}' has no API key configured: set ${envVar} in the gateway's environment and restart it.`,
      { code: 'provider_key_missing' },
    ),
  notImplemented: (message: string) =>
    new GatewayError(501, 'not_implemented_error', message, { code: 'not_implemented' }),
  upstreamStatus: (status: number, message: string, type?: string | null, code?: string | null, param?: string | null) =>
    new GatewayError(status, type ?? (status >= 500 ? 'upstream_error' : 'invalid_request_error'), message, {
      code: code ?? null,
      param: param ?? null,
      kind: 'upstream_status',
    }),
  /** The provider refused the gateway's own key (its 401/403): the client cannot fix that, the operator can. */
  upstreamAuthFailed: (provider: string, status: number, detail: string) =>
    new GatewayError(502, 'upstream_error', `Provider '${provider}' refused the gateway's credentials (HTTP ${status}): ${detail} The gateway's operator must fix the provider key; retrying will not help.`, {
      code: 'upstream_auth_failed',
      kind: 'upstream_auth',
    }),
  upstreamUnreachable: (provider: string, detail: string) =>
    new GatewayError(502, 'upstream_error', `Could not reach provider '${provider}': ${detail}.`, {
      code: 'upstream_unreachable',
      kind: 'connect',
    }),
  upstreamBadResponse: (provider: string, detail: string) =>
    new GatewayError(502, 'upstream_error', `Provider '${provider}' sent a response toolgate could not read: ${detail}.`, {
      code: 'upstream_bad_response',
      kind: 'upstream_bad_response',
    }),
  /** The answer broke the request's tool contract (docs/contract.md); `param` names the request field whose rule it broke. */
  toolContractViolation: (provider: string, model: string, detail: string, param: string, reasks: number) =>
    new GatewayError(502, 'upstream_error', `Provider '${provider}' (model '${model}') answered against the request's tool contract${reasks > 0 ? ` after ${reasks} re-ask${reasks === 1 ? '' : 's'}` : ''}: ${detail}.`, {
      code: 'tool_contract_violation',
      param,
    }),
  upstreamTimeout: (provider: string, timeoutMs: number) =>
    new GatewayError(504, 'timeout_error', `Provider '${provider}' did not answer within ${timeoutMs} ms.`, {
      code: 'upstream_timeout',
      kind: 'timeout',
    }),
  streamIdleTimeout: (provider: string, idleMs: number) =>
    new GatewayError(504, 'timeout_error', `Provider '${provider}' stream stalled: no data for ${idleMs} ms.`, {
      code: 'stream_idle_timeout',
      kind: 'timeout',
    }),
  /** The client went away: nobody reads this error, it only labels the call (never a provider failure). */
  clientAborted: () =>
    new GatewayError(499, 'invalid_request_error', 'The client closed the request before the answer was complete.', {
      code: 'client_closed_request',
      kind: 'client_aborted',
    }),
  // Reliability and security (gateway keys, limits, resilience). Keys and their hashes are never echoed.
  invalidApiKey: () =>
    new GatewayError(
      401,
      'invalid_request_error',
      "Incorrect or missing API key for this gateway. Send it as 'Authorization: Bearer <gateway key>'.",
      { code: 'invalid_api_key' },
    ),
  modelNotAllowed: (model: string, keyName: string) =>
    new GatewayError(403, 'permission_error', `The gateway key '${keyName}' is not allowed to use the model '${model}'.`, {
      param: 'model',
      code: 'model_not_allowed',
    }),
  rateLimited: (keyName: string, limit: string, retryAfterSeconds: number) =>
    new GatewayError(429, 'rate_limit_error', `Rate limit reached for gateway key '${keyName}': ${limit}. Please try again in ${retryAfterSeconds}s.`, {
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  budgetExceeded: (keyName: string, budgetUsd: number, retryAfterSeconds: number) =>
    new GatewayError(429, 'rate_limit_error', `Gateway key '${keyName}' has used its daily budget of $${budgetUsd}; it resets at 00:00 UTC.`, {
      code: 'budget_exceeded',
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  tooMany: (param: string, limit: number, actual: number) =>
    new GatewayError(400, 'invalid_request_error', `Invalid '${param}': ${actual} items is more than the gateway's limit of ${limit}.`, {
      param,
      code: 'array_above_max_length',
    }),
  /** A body within the limits whose translation to chat is not (one Messages turn of many tool_result blocks is as many chat messages). */
  tooManyTranslated: (param: string, limit: number, actual: number) =>
    new GatewayError(400, 'invalid_request_error', `Invalid '${param}': the request becomes ${actual} chat messages upstream (each tool result is one), more than the gateway's limit of ${limit}.`, {
      param,
      code: 'array_above_max_length',
    }),
  bodyTooDeep: (maxDepth: number) =>
    new GatewayError(400, 'invalid_request_error', `The JSON body is nested deeper than the gateway's limit of ${maxDepth} levels.`, {
      code: 'invalid_body',
    }),
  stringTooLong: (maxLength: number) =>
    new GatewayError(400, 'invalid_request_error', `The JSON body has a string longer than the gateway's limit of ${maxLength} characters.`, {
      code: 'string_above_max_length',
    }),
  // Client input limits: each names the limit, so a client can fix its request.
  argumentsTooDeep: (maxDepth: number) =>
    new GatewayError(400, 'invalid_request_error', `Tool call arguments are nested deeper than the gateway's limit of ${maxDepth} levels.`, {
      code: 'arguments_too_deep',
    }),
  toolNameTooLong: (param: string, length: number, maxLength: number) =>
    new GatewayError(400, 'invalid_request_error', `Invalid '${param}': a tool name of ${length} characters is longer than the gateway's limit of ${maxLength}.`, {
      param,
      code: 'tool_name_too_long',
    }),
  invalidToolParameters: (param: string, got: string) =>
    new GatewayError(400, 'invalid_request_error', `Invalid '${param}': expected a JSON schema object, got ${got}.`, {
      param,
      code: 'invalid_tool_parameters',
    }),
  modelNameTooLong: (length: number, maxLength: number) =>
    new GatewayError(400, 'invalid_request_error', `Invalid 'model': a model name of ${length} characters is longer than the gateway's limit of ${maxLength}.`, {
      param: 'model',
      code: 'model_name_too_long',
    }),
  forbiddenKey: (key: string) =>
    new GatewayError(400, 'invalid_request_error', `The JSON body uses the reserved key '${key}'.`, { code: 'invalid_body' }),
  circuitOpen: (provider: string, retryAfterSeconds: number, model?: string) =>
    new GatewayError(
      503,
      'upstream_error',
      `Provider '${provider}' is failing${model === undefined ? '' : ` for model '${model}'`} and toolgate stopped calling it for a while (circuit breaker open); no fallback was available. Please try again in ${retryAfterSeconds}s.`,
      { code: 'upstream_circuit_open', headers: { 'retry-after': String(retryAfterSeconds) }, kind: 'circuit_open' },
    ),
  stateUnavailable: () =>
    new GatewayError(503, 'server_error', "The gateway's shared state (Redis) is unavailable; rate limits cannot be checked.", {
      code: 'state_unavailable',
      headers: { 'retry-after': '1' },
    }),
  // Responses API state, in OpenAI's wording (an unknown previous_response_id is a 400 there).
  previousResponseNotFound: (id: string) =>
    new GatewayError(400, 'invalid_request_error', `Previous response with id '${id}' not found.`, {
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    }),
  /** A link inside a previous_response_id chain is gone: the same code, so clients recover the same way. */
  previousResponseLinkNotFound: (id: string, missing: string) =>
    new GatewayError(
      400,
      'invalid_request_error',
      `Previous response with id '${missing}' not found: it is part of the conversation of '${id}' and was deleted or has expired, so that conversation cannot be continued. Send its history as input items instead.`,
      { param: 'previous_response_id', code: 'previous_response_not_found' },
    ),
  /** An output in a continued chain whose call is in neither the chain, the input nor the store (OpenAI's wording). */
  toolCallNotFound: (callId: string, previousId: string) =>
    new GatewayError(
      400,
      'invalid_request_error',
      `No tool call found for function call output with call_id ${callId}: the conversation of previous response '${previousId}' holds no such call, nor does the input.`,
      { param: 'input', code: 'tool_call_not_found' },
    ),
  /** WebSocket mode: a frame that is not a `response.create` event as JSON text (the socket is closed after it). */
  websocketBadEvent: (detail: string) =>
    new GatewayError(400, 'invalid_request_error', `Invalid WebSocket event: ${detail}`, { param: 'type', code: 'invalid_websocket_event' }),
  /** WebSocket mode: more response.create events waiting than server.websocket.maxQueued. */
  websocketQueueFull: (max: number) =>
    new GatewayError(400, 'invalid_request_error', `Too many response.create events waiting on this WebSocket (at most ${max} behind the running one): wait for a terminal event before sending more.`, {
      code: 'websocket_queue_full',
    }),
  responseNotFound: (id: string) =>
    new GatewayError(404, 'invalid_request_error', `Response with id '${id}' not found.`, { param: 'response_id', code: 'response_not_found' }),
  itemNotFound: (id: string, param: string) =>
    new GatewayError(404, 'invalid_request_error', `Item with id '${id}' not found.`, { param, code: 'item_not_found' }),
  responseStoreUnavailable: () =>
    new GatewayError(503, 'server_error', 'The response store is unavailable; conversation state could not be read or written.', {
      code: 'response_store_unavailable',
    }),
  // The request inspector (docs/inspector.md).
  inspectorForbidden: () =>
    new GatewayError(403, 'permission_error', 'The request inspector answers loopback clients only: configure gateway keys, or set inspector.public: true.', {
      code: 'inspector_forbidden',
    }),
  requestRecordNotFound: (id: string) =>
    new GatewayError(404, 'invalid_request_error', `No inspector record with id '${id.slice(0, 200)}'.`, { param: 'id', code: 'request_not_found' }),
  internal: (message = 'The gateway hit an internal error; the request was not completed.') =>
    new GatewayError(500, 'server_error', message, { code: 'internal_error' }),
  shuttingDown: () =>
    new GatewayError(503, 'server_error', 'The gateway is shutting down; retry on another instance.', {
      code: 'shutting_down',
    }),
};

/** Codes a client's own retry can change: the gateway key's per-minute limits (retry-after within a minute). */
const CLIENT_MAY_RETRY = new Set(['rate_limit_exceeded']);

/**
 * The headers of an error reply: the error's own (an upstream's `retry-after` among them) and
 * `x-should-retry: false` (obeyed by the official OpenAI and Anthropic SDKs, which otherwise retry
 * 408, 409, 429 and 5xx twice) on an error a client retry cannot change or toolgate already
 * retried: every 4xx but the key's per-minute rate limit, and every upstream failure (its retries
 * and fallbacks ran out) and contract error (its re-asks ran out). Gateway-side 5xx without an
 * upstream behind them (internal errors, Redis or the store unavailable, shutting down) are left
 * to the client's retry policy.
 */
export function replyHeaders(error: GatewayError): Record<string, string> {
  const upstream = error.kind !== undefined; // an upstream failure, after toolgate's retries and fallbacks
  const final = error.status >= 400 && error.status < 500 ? upstream || !CLIENT_MAY_RETRY.has(error.code ?? '') : upstream || error.code === 'tool_contract_violation' || error.status === 501;
  return final ? { ...error.headers, 'x-should-retry': 'false' } : error.headers;
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
