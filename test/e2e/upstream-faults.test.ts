import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { startFaultyUpstream, type FaultyUpstream } from '../helpers/faulty-upstream.js';
import { isOpenAIError, startReliableGateway, type ReliableGateway } from '../helpers/reliable-gateway.js';

// Every upstream fault × endpoint × stream/non-stream ends in a clear OpenAI-shaped error, a
// terminal SSE error event, or a successful retry/fallback, within the configured timeouts;
// no unhandled rejection; memory back to baseline. Prints the matrix.

const TIMEOUT_MS = 400;
// A hang is an answer that never comes. The timeouts fire in about TIMEOUT_MS + 1 s (undici's timers
// have ~1 s resolution) and each row's outcome says which fired; the client's deadline only has to
// tell "late on a loaded machine" (this file's memory rounds send four at once) from "never".
const CLIENT_DEADLINE_MS = 15_000;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type Endpoint = 'chat' | 'responses';
interface Result {
  outcome: string;
  attempts: number;
  ms: number;
  shaped: boolean;
}

function config(upstream: FaultyUpstream): string {
  return `providers:
  simulator: {type: simulator}
  faulty:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: sk-faulty-upstream-SECRET-1
    timeoutMs: ${TIMEOUT_MS}
    streamIdleTimeoutMs: ${TIMEOUT_MS}
    retry: {maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 200}
    circuitBreaker: {failureThreshold: 100000, cooldownMs: 1000}
models:
  primary-down: {provider: faulty, model: http-503@primary, fallbacks: [faulty/ok]}
`;
}

async function run(gw: ReliableGateway, upstream: FaultyUpstream, endpoint: Endpoint, model: string, stream: boolean): Promise<Result> {
  const before = upstream.total();
  const started = performance.now();
  const body = endpoint === 'chat' ? { model, stream, messages: [{ role: 'user', content: 'hello' }] } : { model, stream, input: 'hello' };
  const response = await fetch(`${gw.url}/v1/${endpoint === 'chat' ? 'chat/completions' : 'responses'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
  });
  const text = await response.text();
  const ms = Math.round(performance.now() - started);
  const attempts = upstream.total() - before;
  if (response.status !== 200) {
    const json = safeJson(text);
    return { outcome: `${response.status} ${json?.error?.code ?? json?.error?.type ?? '?'}`, attempts, ms, shaped: isOpenAIError(json) };
  }
  if (!stream) {
    const json = safeJson(text);
    const ok = endpoint === 'chat' ? Array.isArray(json?.choices) : json?.status === 'completed';
    return { outcome: ok ? '200 ok' : '200 ???', attempts, ms, shaped: ok };
  }
  return { ...streamOutcome(text), attempts, ms };
}

/** Chat: `[DONE]` or one final `data: {"error"}`; Responses: response.completed or error + response.failed. */
function streamOutcome(text: string): { outcome: string; shaped: boolean } {
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));
  const last = data[data.length - 1];
  if (last === '[DONE]') return { outcome: 'stream ok', shaped: true };
  const events = data.map(safeJson);
  if (events.some((e) => e?.type === 'response.completed')) return { outcome: 'stream ok', shaped: true };
  const error = events.find((e) => e?.error || e?.type === 'error');
  if (!error) return { outcome: 'TRUNCATED', shaped: false };
  const code = error.type === 'error' ? error.code : error.error.code;
  const shaped = error.type === 'error' ? typeof error.message === 'string' : isOpenAIError(error);
  return { outcome: `SSE error ${code}`, shaped };
}

function safeJson(text: string | undefined): any {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

// fault → [non-stream outcome, stream outcome, upstream attempts non-stream, stream]
const EXPECTED: Record<string, [string, string, number, number]> = {
  'ok': ['200 ok', 'stream ok', 1, 1],
  'reset-before-headers': ['502 upstream_unreachable', '502 upstream_unreachable', 2, 2],
  'reset-mid-body': ['502 upstream_bad_response', 'SSE error upstream_bad_response', 2, 1],
  'http-500': ['500 server_error', '500 server_error', 2, 2],
  'http-503': ['503 server_error', '503 server_error', 2, 2],
  'http-429': ['429 requests', '429 requests', 2, 2],
  'hang-before-headers': ['504 upstream_timeout', '504 upstream_timeout', 1, 1],
  'stall-mid-body': ['504 stream_idle_timeout', 'SSE error stream_idle_timeout', 1, 1],
  'non-json-200': ['502 upstream_bad_response', '502 upstream_bad_response', 2, 2],
  'broken-sse': ['502 upstream_bad_response', 'SSE error upstream_bad_response', 2, 1],
  'every-other': ['200 ok', 'stream ok', 2, 2],
  'primary-down': ['200 ok', 'stream ok', 3, 3],
};

t.test('fault matrix', async (t) => {
  const upstream = await startFaultyUpstream();
  const gw = await startReliableGateway(config(upstream));
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const endpoints: Endpoint[] = ['chat', 'responses'];
  const rows: string[][] = [['fault', 'endpoint', 'mode', 'outcome', 'upstream attempts', 'ms']];
  for (const [fault, [jsonOutcome, streamOutcomeExpected, jsonAttempts, streamAttempts]] of Object.entries(EXPECTED)) {
    const model = fault === 'primary-down' ? 'primary-down' : `faulty/${fault}`;
    for (const endpoint of endpoints) {
      for (const stream of [false, true]) {
        const result = await run(gw, upstream, endpoint, model, stream);
        rows.push([fault, endpoint, stream ? 'stream' : 'json', result.outcome, String(result.attempts), String(result.ms)]);
        const label = `${fault} ${endpoint} ${stream ? 'stream' : 'json'}`;
        t.ok(result.shaped, `${label}: OpenAI-shaped (${result.outcome})`);
        t.equal(result.outcome, stream ? streamOutcomeExpected : jsonOutcome, `${label}: outcome`);
        t.equal(result.attempts, stream ? streamAttempts : jsonAttempts, `${label}: upstream attempts`);
        t.ok(result.ms < CLIENT_DEADLINE_MS, `${label}: no hang (${result.ms} ms)`);
      }
    }
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const table = rows.map((row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`);
  table.splice(1, 0, `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  t.comment(`fault matrix (timeoutMs=streamIdleTimeoutMs=${TIMEOUT_MS}, retry maxAttempts=2):\n${table.join('\n')}`);
  console.log(table.join('\n'));

  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  for (const outcome of ['success', 'retried', 'fallback', 'connect_error', 'timeout', 'invalid_response', 'error_5xx', 'rate_limited']) {
    const pattern = new RegExp(`^toolgate_llm_calls_total\\{[^}]*outcome="${outcome}"[^}]*\\} ([0-9.e+]+)$`, 'gm');
    const total = [...metrics.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
    t.ok(total > 0, `llm_calls_total{outcome="${outcome}"} = ${total}`);
  }
});

t.test('memory returns to baseline after repeated faults; no unhandled rejections', async (t) => {
  const upstream = await startFaultyUpstream();
  const gw = await startReliableGateway(config(upstream), {}, 'warn');
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const fast = ['reset-before-headers', 'reset-mid-body', 'http-503', 'every-other', 'broken-sse', 'non-json-200', 'primary-down'];
  const round = async (): Promise<void> => {
    for (const fault of fast) {
      const model = fault === 'primary-down' ? fault : `faulty/${fault}`;
      await Promise.all((['chat', 'responses'] as const).flatMap((endpoint) => [false, true].map((stream) => run(gw, upstream, endpoint, model, stream))));
    }
  };
  for (let i = 0; i < 5; i++) await round(); // warm up pools, caches, JIT
  gw.logs.length = 0;
  gc();
  const baseline = process.memoryUsage().heapUsed;
  for (let i = 0; i < 25; i++) {
    await round();
    gw.logs.length = 0;
  }
  await new Promise((r) => setTimeout(r, 50));
  gc();
  gc();
  const growthMb = (process.memoryUsage().heapUsed - baseline) / 1024 / 1024;
  t.comment(`heap after ${25 * fast.length * 4} faulty requests: ${growthMb.toFixed(2)} MB over baseline`);
  t.ok(growthMb < 15, `heap back near baseline (${growthMb.toFixed(2)} MB)`);
  t.same(unhandled, [], 'no unhandled rejection');
});

t.teardown(() => {
  process.off('unhandledRejection', onUnhandled);
});
