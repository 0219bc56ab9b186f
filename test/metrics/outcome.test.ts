import t from 'tap';
import { errors, GatewayError } from '../../src/errors.js';
import { outcomeOfError } from '../../src/metrics/index.js';

t.test('final-failure outcomes from the error catalogue', async (t) => {
  t.equal(outcomeOfError(errors.upstreamTimeout('p', 1000)), 'timeout');
  t.equal(outcomeOfError(errors.streamIdleTimeout('p', 1000)), 'timeout');
  t.equal(outcomeOfError(errors.upstreamUnreachable('p', 'ECONNREFUSED')), 'connect_error');
  t.equal(outcomeOfError(errors.upstreamBadResponse('p', 'bad JSON')), 'invalid_response');
  t.equal(outcomeOfError(errors.upstreamStatus(429, 'slow down')), 'rate_limited');
  t.equal(outcomeOfError(errors.upstreamStatus(503, 'overloaded')), 'error_5xx');
  t.equal(outcomeOfError(errors.upstreamStatus(400, 'bad tools')), 'error_4xx');
  t.equal(outcomeOfError(new GatewayError(401, 'authentication_error', 'no key')), 'error_4xx');
  const abort = new Error('aborted');
  abort.name = 'AbortError';
  t.equal(outcomeOfError(abort), 'aborted');
  t.equal(outcomeOfError(errors.upstreamStatus(503, 'x'), AbortSignal.abort()), 'aborted', 'the client left first');
  t.equal(outcomeOfError(Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' })), 'timeout');
  t.equal(outcomeOfError(new TypeError('fetch failed')), 'connect_error');
});
