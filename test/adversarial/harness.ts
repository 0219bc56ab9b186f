import { cpuMs } from '../helpers/growth.js';
import { textAnswer, type UpstreamAnswer } from './answers.js';
import { startRawUpstream, type RawUpstream } from '../helpers/raw-upstream.js';
import { configFor, startGateway, type TestGateway } from '../helpers/gateway.js';
import { FULL_VOLUME } from '../helpers/volume.js';

// The adversarial suite's harness: a real gateway in front of a scripted upstream, one attack
// request at a time, a concurrent /healthz from "another client" while it runs, and growth checked
// by the ratio of the 200 KB time to the 50 KB time (min of several runs), never by absolute time.

export const SMALL = 50 * 1024;
export const LARGE = 200 * 1024;
/** Linear work gives ~4× (less with fixed costs); quadratic gives ~16×. */
export const MAX_GROWTH_RATIO = 8;

export const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
} as const;

/** Lets a developer run some cases only: ADV_ONLY=<regex on the case name>. */
export function selected(name: string): boolean {
  const only = process.env.ADV_ONLY;
  return !only || new RegExp(only).test(name);
}

export { textAnswer, toolCallAnswer, type UpstreamAnswer } from './answers.js';

export interface AttackRig {
  gateway: TestGateway;
  upstream: RawUpstream;
  /** What the upstream answers next (default: a short JSON/SSE text answer). */
  answer: UpstreamAnswer;
  /** /healthz probes of the current attack: one sent with it, one when the upstream got it. */
  probes: Promise<number>[];
  /** Sends one attack request; the outcome carries the statuses the concurrent probes got. */
  run(path: string, body: unknown, headers?: Record<string, string>): Promise<Outcome>;
  close(): Promise<void>;
}

/** A gateway whose provider `raw` (and `aliases`, same upstream) is a scripted upstream. */
export async function startRig(extraConfig = '', providerExtra = '', aliases: readonly string[] = []): Promise<AttackRig> {
  const rig = { answer: textAnswer('ok'), probes: [] as Promise<number>[] } as AttackRig;
  rig.upstream = await startRawUpstream((req, res, body) => {
    // Another client asks /healthz while the gateway handles this answer.
    rig.probes.push(probeHealth(rig.gateway.url));
    rig.answer(req, res, body);
  });
  rig.gateway = await startGateway({
    yaml: configFor(
      Object.fromEntries(['raw', ...aliases].map((name) => [name, { baseUrl: rig.upstream.baseURL, apiKey: 'k-raw', extra: providerExtra }])),
      // Hostile answers break their tool contract: checked (the check's own cost is measured too) and
      // handed on with a warning, not re-asked (docs/contract.md).
      `contract:\n  onViolation: pass\n${extraConfig}`,
    ),
    logLevel: 'warn',
  });
  rig.run = async (path, body, headers) => {
    rig.probes = [];
    const pending = send(rig.gateway.url, path, body, headers);
    rig.probes.push(probeHealth(rig.gateway.url));
    const outcome = await pending;
    outcome.health = await Promise.all(rig.probes);
    return outcome;
  };
  rig.close = async () => {
    await rig.gateway.close();
    await rig.upstream.close();
  };
  return rig;
}

export async function probeHealth(url: string): Promise<number> {
  try {
    const res = await fetch(`${url}/healthz`);
    await res.text();
    return res.status;
  } catch {
    return 0;
  }
}

export interface Outcome {
  status: number;
  /** CPU ms this process spent while the request ran (gateway, upstream and client are in it). */
  ms: number;
  /** Parsed JSON body (JSON requests or error bodies). */
  json?: unknown;
  /** SSE: the concatenated content deltas; JSON: message.content. */
  content?: string | null;
  toolCalls: number;
  /** SSE: an `error` event arrived in the stream. */
  streamError?: unknown;
  raw: string;
  /** Statuses of the /healthz probes sent while this request ran (0 = no answer). */
  health?: number[];
  /** Set by a check when the client did not get the model's text back (and no calls either). */
  contentLost?: boolean;
}

/** POSTs a body to the gateway and reads the whole answer (JSON or SSE). */
export async function send(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
  // CPU time of this process (gateway, upstream and client all run in it), not wall time: other
  // processes on a busy machine do not inflate it, and a quadratic parser shows in it all the same.
  const started = cpuMs();
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const raw = await res.text();
  const ms = cpuMs() - started;
  const outcome: Outcome = { status: res.status, ms, toolCalls: 0, raw };
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    let content = '';
    for (const line of raw.split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const event = JSON.parse(line.slice(6)) as { error?: unknown; choices?: { delta?: { content?: string | null; tool_calls?: { id?: string }[] } }[] };
      if (event.error) outcome.streamError = event.error;
      const delta = event.choices?.[0]?.delta;
      if (typeof delta?.content === 'string') content += delta.content;
      outcome.toolCalls += (delta?.tool_calls ?? []).filter((call) => call.id).length;
    }
    outcome.content = content;
    return outcome;
  }
  try {
    outcome.json = JSON.parse(raw);
  } catch {
    return outcome;
  }
  const message = (outcome.json as { choices?: { message?: { content?: string | null; tool_calls?: unknown[] } }[] }).choices?.[0]?.message;
  if (message) {
    outcome.content = message.content ?? null;
    outcome.toolCalls = message.tool_calls?.length ?? 0;
  }
  return outcome;
}

/** The OpenAI error shape: {error: {message, type, param, code}}. */
export function isOpenAIError(json: unknown): json is { error: { message: string; type: string; param: unknown; code: unknown } } {
  const error = (json as { error?: Record<string, unknown> } | undefined)?.error;
  return !!error && typeof error.message === 'string' && typeof error.type === 'string' && 'param' in error && 'code' in error;
}

export interface Growth {
  smallMs: number;
  largeMs: number;
  ratio: number;
  small: Outcome;
  large: Outcome;
  /** The slowest run of all, the warm-up included: reported, not judged (a first run of seconds hid behind the minimums once). */
  slowestMs: number;
}

/**
 * Below this, a 50 KB time is timer and scheduling noise, not parser work: the ratio is taken
 * against at least this much. A quadratic parser is far above it at 50 KB (seconds before the fix).
 */
export const NOISE_FLOOR_MS = 20;

/** Pairs tried at most while the ratio is over the threshold: a loaded 2-core CI machine (the suite runs
 * two test files at once) can slow three 200 KB runs in a row; a quadratic parser stays over at any count. */
const MAX_PAIRS = 10;
/** Pairs always run: 3 in CI; by default 1, more only while the ratio is over the threshold. */
const MIN_PAIRS = FULL_VOLUME ? 3 : 1;

/**
 * Runs an attack at 50 KB and 200 KB, alternating (after a warm-up) so both sizes see the same
 * machine load: at least MIN_PAIRS pairs, up to MAX_PAIRS while the ratio of the minimums is over the threshold
 * (a noisy machine only ever makes a run slower).
 */
export async function measureGrowth(attack: (bytes: number) => Promise<Outcome>): Promise<Growth> {
  let small = await attack(SMALL);
  let large = small;
  let slowestMs = small.ms;
  let smallMs = Infinity;
  let largeMs = Infinity;
  const ratioOf = (): number => largeMs / Math.max(smallMs, NOISE_FLOOR_MS);
  for (let pair = 0; pair < MAX_PAIRS && (pair < MIN_PAIRS || ratioOf() > MAX_GROWTH_RATIO); pair++) {
    small = await attack(SMALL);
    smallMs = Math.min(smallMs, small.ms);
    const run = await attack(LARGE);
    slowestMs = Math.max(slowestMs, small.ms, run.ms);
    if (run.ms < largeMs || pair === 0) large = run;
    largeMs = Math.min(largeMs, run.ms);
  }
  return { smallMs, largeMs, ratio: ratioOf(), small, large, slowestMs };
}

export function describeGrowth(growth: Growth): string {
  return `50 KB ${growth.smallMs.toFixed(1)} ms, 200 KB ${growth.largeMs.toFixed(1)} ms: ×${growth.ratio.toFixed(1)} (limit ×${MAX_GROWTH_RATIO}, 50 KB counted as ≥ ${NOISE_FLOOR_MS} ms; slowest run ${growth.slowestMs.toFixed(1)} ms)`;
}
