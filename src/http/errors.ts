import type { FastifyError } from 'fastify';
import { errors, GatewayError, isGatewayError } from '../errors.js';

/** Maps anything thrown during a request to the catalogue: client mistakes are never a 5xx. */
export function toGatewayError(error: unknown, bodyLimit: number): GatewayError {
  if (isGatewayError(error)) return error;
  const fastifyError = error as Partial<FastifyError> & { status?: number };
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(String((error as { contentType?: string }).contentType ?? 'unknown'));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidJson('the body is empty');
    case 'FST_ERR_BAD_URL':
      return errors.invalidRequest(`Invalid request URL: ${fastifyError.message ?? 'malformed URL'}`, null, 'invalid_url');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.invalidJson(fastifyError.message ?? 'malformed body');
  }
  if (error instanceof SyntaxError) return errors.invalidJson(error.message);
  const status = fastifyError.statusCode ?? fastifyError.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new GatewayError(status, 'invalid_request_error', fastifyError.message ?? 'Bad request', {
      code: fastifyError.code ?? null,
    });
  }
  return errors.internal();
}
