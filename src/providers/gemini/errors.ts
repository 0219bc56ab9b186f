import { errors, type GatewayError } from '../../errors.js';
import { upstreamTypeFor } from '../upstream-http.js';
import { isJsonObject } from './schema.js';

// Gemini's google.rpc.Status errors → the catalogue: same HTTP status, Gemini's own message,
// `code` = the ErrorInfo reason or the RPC status (e.g. `api_key_invalid`, `resource_exhausted`).
// A RetryInfo delay (429/503) becomes a `retry-after` header the route can pass on. Whether a
// status is retried is decided by the one failure table (src/resilience/failures.ts).

export function geminiError(provider: string, status: number, body: string, retryAfterHeader?: string): GatewayError {
  const parsed = parse(body);
  const error = parsed && isJsonObject(parsed.error) ? parsed.error : null;
  const httpStatus = status >= 400 && status <= 599 ? status : typeof error?.code === 'number' && error.code >= 400 ? error.code : 502;
  const snippet = body.trim().slice(0, 500);
  const message = typeof error?.message === 'string' && error.message
    ? error.message
    : snippet ? `Provider '${provider}' answered HTTP ${httpStatus}: ${snippet}` : `Provider '${provider}' answered HTTP ${httpStatus} with an empty body.`;
  const details = Array.isArray(error?.details) ? error.details.filter(isJsonObject) : [];
  const reason = details.find((d) => typeof d.reason === 'string')?.reason;
  const rpcStatus = typeof error?.status === 'string' ? error.status : undefined;
  const code = typeof reason === 'string' ? reason.toLowerCase() : rpcStatus?.toLowerCase() ?? null;
  const type = upstreamTypeFor(httpStatus);
  const result = errors.upstreamStatus(httpStatus, message, type, code);

  const delay = details.find((d) => typeof d.retryDelay === 'string')?.retryDelay;
  const seconds = typeof delay === 'string' ? Math.ceil(Number.parseFloat(delay)) : Number.parseInt(retryAfterHeader ?? '', 10);
  if (Number.isFinite(seconds) && seconds >= 0) result.headers['retry-after'] = String(seconds);
  return result;
}

function parse(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    // streamGenerateContent without alt=sse wraps errors in an array
    const first = Array.isArray(value) ? value[0] : value;
    return isJsonObject(first) ? first : null;
  } catch {
    return null;
  }
}
