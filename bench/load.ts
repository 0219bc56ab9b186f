import autocannon from 'autocannon';
import { Pool } from 'undici';
import { Samples, round } from './common.js';

// Load generators. JSON: autocannon (closed loop, fixed connections), with every response's
// latency kept as a float (autocannon's own histogram rounds to whole ms, too coarse for "added
// latency ≤ 2 ms"). SSE: an undici closed loop that times the first body byte and the last.

export interface JsonRun {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  requests: number;
  errors: number;
  non2xx: number;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Closed loop on `connections` connections (autocannon). */
export async function jsonLoad(url: string, body: string, connections: number, durationS: number, headers: Record<string, string> = {}): Promise<JsonRun> {
  const latencies = new Samples();
  let ok = 0;
  const instance = autocannon({
    url,
    method: 'POST',
    body,
    headers: { ...JSON_HEADERS, ...headers },
    connections,
    pipelining: 1,
    duration: durationS,
    timeout: 30,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTimeMs: number) => {
    if (status >= 200 && status < 300) {
      ok++;
      latencies.push(responseTimeMs);
    }
  });
  const result = await instance;
  const [p50, p90, p99] = latencies.percentiles([50, 90, 99]);
  return {
    rps: round(ok / result.duration, 1),
    p50: round(p50, 3),
    p90: round(p90, 3),
    p99: round(p99, 3),
    requests: ok,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * JSON requests started on a smooth schedule (`rate` per second overall, up to `connections` in
 * flight): an open-loop "moderate load". autocannon's own rate limit sends each connection's
 * share in a burst at the start of every second, which measures its bursts, not the proxy.
 */
export async function pacedJsonLoad(url: string, body: string, connections: number, durationS: number, rate: number, headers: Record<string, string> = {}): Promise<JsonRun> {
  const run = await streamLoad(url, body, connections, durationS, rate, false, headers);
  return { rps: run.rps, p50: run.ttlbP50, p90: run.ttlbP90, p99: run.ttlbP99, requests: run.streams, errors: run.errors + run.incomplete, non2xx: 0 };
}

export interface StreamRun {
  rps: number;
  ttfbP50: number;
  ttfbP99: number;
  ttlbP50: number;
  ttlbP90: number;
  ttlbP99: number;
  streams: number;
  errors: number;
  /** Streams that ended without `data: [DONE]` or with an error event. */
  incomplete: number;
}

interface OneStream {
  ok: boolean;
  complete: boolean;
  ttfb: number;
  ttlb: number;
}

async function oneStream(pool: Pool, path: string, body: string, sse = true, headers: Record<string, string> = {}): Promise<OneStream> {
  const started = performance.now();
  const response = await pool.request({ method: 'POST', path, headers: { ...JSON_HEADERS, ...headers }, body });
  let ttfb = NaN;
  let tail = '';
  for await (const part of response.body) {
    if (Number.isNaN(ttfb)) ttfb = performance.now() - started;
    tail = (tail + (part as Buffer).toString('latin1')).slice(-64);
  }
  const ttlb = performance.now() - started;
  const complete = sse ? tail.endsWith('data: [DONE]\n\n') : tail.length > 0;
  return { ok: response.statusCode === 200, complete, ttfb, ttlb };
}

/**
 * `concurrency` clients each streaming one request after another for `durationS`; with `rate`,
 * requests start on a fixed schedule (rate per second overall) instead of back to back.
 */
export async function streamLoad(
  url: string,
  body: string,
  concurrency: number,
  durationS: number,
  rate?: number,
  sse = true,
  headers: Record<string, string> = {},
): Promise<StreamRun> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const ttfb = new Samples();
  const ttlb = new Samples();
  let errors = 0;
  let incomplete = 0;
  let done = 0;
  const started = performance.now();
  const deadline = started + durationS * 1000;
  let scheduled = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      if (rate) {
        const at = started + (scheduled++ * 1000) / rate;
        if (at >= deadline) break;
        const wait = at - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      try {
        const result = await oneStream(pool, target.pathname, body, sse, headers);
        if (!result.ok) errors++;
        else if (!result.complete) incomplete++;
        else {
          done++;
          ttfb.push(result.ttfb);
          ttlb.push(result.ttlb);
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const [fb50, fb99] = ttfb.percentiles([50, 99]);
  const [lb50, lb90, lb99] = ttlb.percentiles([50, 90, 99]);
  return {
    rps: round(done / elapsed, 1),
    ttfbP50: round(fb50, 3),
    ttfbP99: round(fb99, 3),
    ttlbP50: round(lb50, 3),
    ttlbP90: round(lb90, 3),
    ttlbP99: round(lb99, 3),
    streams: done,
    errors,
    incomplete,
  };
}

export interface ManyStreamsRun {
  streams: number;
  completed: number;
  errors: number;
  incomplete: number;
  wallS: number;
  ttfbP50: number;
  ttfbP99: number;
  ttlbP50: number;
  ttlbP99: number;
  firstError?: string;
}

/** `count` streams opened at once (one connection each); resolves when every one has ended. */
export async function manyStreams(url: string, body: string, count: number, onTick?: () => void): Promise<ManyStreamsRun> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: count, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 300_000, bodyTimeout: 300_000 });
  const ttfb = new Samples();
  const ttlb = new Samples();
  let errors = 0;
  let incomplete = 0;
  let completed = 0;
  let firstError: string | undefined;
  const ticker = onTick ? setInterval(onTick, 100) : undefined;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const result = await oneStream(pool, target.pathname, body);
        if (!result.ok) errors++;
        else if (!result.complete) incomplete++;
        else {
          completed++;
          ttfb.push(result.ttfb);
          ttlb.push(result.ttlb);
        }
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  if (ticker) clearInterval(ticker);
  onTick?.();
  await pool.close();
  const [fb50, fb99] = ttfb.percentiles([50, 99]);
  const [lb50, lb99] = ttlb.percentiles([50, 99]);
  return {
    streams: count,
    completed,
    errors,
    incomplete,
    wallS: round(wallS, 2),
    ttfbP50: round(fb50, 1),
    ttfbP99: round(fb99, 1),
    ttlbP50: round(lb50, 1),
    ttlbP99: round(lb99, 1),
    ...(firstError ? { firstError } : {}),
  };
}
