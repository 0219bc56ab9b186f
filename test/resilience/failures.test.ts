import t from 'tap';
import { errors, GatewayError } from '../../src/errors.js';
import { classifyFailure, FAILURES } from '../../src/resilience/failures.js';

// Issue 16 §2: one table decides outcome, retry, fallback, breaker and log level for every failure.

t.test('each kind of failure lands on its row', async (t) => {
  const cases: Array<[unknown, string]> = [
    [errors.clientAborted(), 'client_aborted'],
    [Object.assign(new Error('aborted'), { name: 'AbortError' }), 'client_aborted'],
    [errors.upstreamUnreachable('p', 'ECONNREFUSED'), 'connect'],
    [errors.upstreamTimeout('p', 10), 'timeout'],
    [errors.streamIdleTimeout('p', 10), 'timeout'],
    [errors.upstreamStatus(429, 'slow down'), 'rate_limited'],
    [errors.upstreamStatus(504, 'gateway timeout'), 'upstream_timeout_status'],
    [errors.upstreamStatus(500, 'boom'), 'upstream_5xx'],
    [errors.upstreamStatus(501, 'no'), 'upstream_4xx'],
    [errors.upstreamStatus(400, 'bad'), 'upstream_4xx'],
    [errors.invalidRequest('bad'), 'upstream_4xx'],
    [errors.upstreamBadResponse('p', 'no choices'), 'upstream_bad_response'],
    [errors.circuitOpen('p', 3, 'm'), 'circuit_open'],
    [new TypeError('x is undefined'), 'unmapped'],
  ];
  for (const [error, row] of cases) t.equal(classifyFailure(error).row, row, `${(error as Error).message} → ${row}`);
  t.equal(classifyFailure(errors.upstreamStatus(503, 'x'), AbortSignal.abort()).row, 'client_aborted', 'the client left first');
});

t.test('a client that left is never a provider failure nor a warning', async (t) => {
  const row = FAILURES.client_aborted;
  t.equal(row.outcome, 'aborted');
  t.equal(row.breaker, 'neutral');
  t.equal(row.retryable, false);
  t.not(row.logLevel, 'warn');
  t.not(row.logLevel, 'error');
});

t.test('only connect failures count for the whole provider', async (t) => {
  const providerWide = Object.entries(FAILURES).filter(([, row]) => row.breakerScope === 'provider').map(([name]) => name);
  t.same(providerWide, ['connect']);
  t.equal(classifyFailure(new GatewayError(500, 'server_error', 'x', { kind: 'upstream_status' })).breakerScope, 'model');
});
