import type { ErrorBody } from '../errors.js';

// Errors on the Messages endpoints in Anthropic's shape: {type: "error", error: {type, message},
// request_id}. The status and message come from the one catalogue (src/errors.ts); the type is
// Anthropic's name for that status, which is what its SDKs and Claude Code branch on.

export type AnthropicErrorBody = {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string;
};

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function anthropicErrorType(status: number): string {
  return TYPES[status] ?? (status < 500 ? 'invalid_request_error' : 'api_error');
}

export function anthropicErrorBody(body: ErrorBody, status: number, requestId?: string): AnthropicErrorBody {
  const out: AnthropicErrorBody = { type: 'error', error: { type: anthropicErrorType(status), message: body.error.message } };
  if (requestId !== undefined) out.request_id = requestId;
  return out;
}
