import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { median, round } from './common.js';
import { flags, gatewayFlags } from './inproc.js';

// The streaming path's own per-stream work, without sockets, Fastify, the ledger or metrics: the
// SSE reader over one upstream body → the chunk reader (parse or template) → the stream normalizer
// (2 declared tools, text-call detection on) → SSE frames (relayed raw text or serialized), for
// the same 22-event answer as bench/stream-load.ts (role, 9 content tokens, a native call in 9
// fragments, finish, usage, [DONE]). Each build's dist/ is loaded in this process and the builds
// alternate every round, so load from other processes hits them alike: for A/B of a change of a
// few µs per stream, which bench/stream-load.ts (32 connections, whole gateway) cannot resolve on
// a busy machine. Checks first that every build writes the same frames.
//
//   node --import tsx bench/stream-steps.ts --gw=before=<root> --gw=after=<root> [--rounds=60]
//        [--streams=500] [--mode=burst|paced]
// (paced: the body delivers one event per read.)

type Fn = (...args: unknown[]) => unknown;
interface Normalizer {
  pushAll(batch: object[]): object[];
  end(out: object[]): void;
}
interface Build {
  label: string;
  streamChunkReader: (provider: string) => Fn;
  /** The build's reader over a Node stream (builds whose reader takes a ByteSource get it adapted by their own readableSource). */
  readSseBatches: (body: Readable, mapError: Fn, map: Fn, limits: { name: string }) => AsyncIterable<object[]>;
  createStreamNormalizer: (ctx: object) => Normalizer;
  rawJsonOf: (value: object) => string | undefined;
  sseData: (payload: string) => string;
  RepairBudget: new () => object;
}

function fromReadable(read: Build['readSseBatches'], adapt: ((body: Readable) => unknown) | undefined): Build['readSseBatches'] {
  return adapt ? (body, mapError, map, limits) => read(adapt(body) as Readable, mapError, map, limits) : read;
}

async function load(label: string, root: string): Promise<Build> {
  const module = async (path: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(join(root, 'dist', path)).href)) as Record<string, unknown>;
  const [adapter, reader, normalizer, raw, sse, budget] = await Promise.all(
    ['providers/openai-compatible.js', 'providers/sse-reader.js', 'toolcalls/normalize-stream.js', 'api/raw-json.js', 'http/sse.js', 'repair/bounded-json.js'].map(module),
  );
  // Builds from the tenth round on read a ByteSource (providers/byte-source.js); older ones a Readable.
  const bytes = existsSync(join(root, 'dist', 'providers', 'byte-source.js')) ? await module('providers/byte-source.js') : undefined;
  return {
    label,
    streamChunkReader: adapter.streamChunkReader as Build['streamChunkReader'],
    readSseBatches: fromReadable(reader.readSseBatches as Build['readSseBatches'], bytes?.readableSource as ((body: Readable) => unknown) | undefined),
    createStreamNormalizer: normalizer.createStreamNormalizer as Build['createStreamNormalizer'],
    rawJsonOf: raw.rawJsonOf as Build['rawJsonOf'],
    sseData: sse.sseData as Build['sseData'],
    RepairBudget: budget.RepairBudget as Build['RepairBudget'],
  };
}

const ID = 'chatcmpl-bench0001';
const ARGS = '{"city":"Paris","unit":"celsius"}';
const WORDS = 'Let me look up the current weather in Paris for you, one moment please.'.split(/(?= )/);
const frame = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const chunk = (delta: object, finish: string | null = null): string =>
  frame({ id: ID, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'bench-model', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });

/** bench/stream-load.ts's tool-calling answer of 20 chunks, then usage and [DONE]. */
function events(): Buffer[] {
  const frames = [chunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < 8; i++) frames.push(chunk({ content: WORDS[i % WORDS.length] }));
  frames.push(chunk({ tool_calls: [{ index: 0, id: 'call_bench00000000000000001', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
  const size = Math.ceil(ARGS.length / 9);
  for (let i = 0; i < 9; i++) frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ARGS.slice(i * size, (i + 1) * size) } }] }));
  frames.push(chunk({}, 'tool_calls'));
  frames.push(frame({ id: ID, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'bench-model', choices: [], usage: { prompt_tokens: 412, completion_tokens: 23, total_tokens: 435 } }));
  frames.push('data: [DONE]\n\n');
  return frames.map((text) => Buffer.from(text));
}

const TOOLS = new Map(
  [
    { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] } },
    { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } },
  ].map((fn) => [fn.name, { type: 'function', function: fn }]),
);

/** An undici-like body (a Readable with dump()) that hands out one part per read. */
function bodyOf(parts: Buffer[]): Readable {
  let next = 0;
  const body = new Readable({
    read() {
      this.push(next < parts.length ? parts[next++] : null);
    },
  });
  return Object.assign(body, { dump: async (): Promise<void> => undefined });
}

async function oneStream(build: Build, parts: Buffer[]): Promise<string> {
  const ctx = { tools: TOOLS, resolveName: (name: string) => (TOOLS.has(name) ? name : null), repairBudget: new build.RepairBudget(), textParsing: true, reasoning: 'content' };
  const normalizer = build.createStreamNormalizer(ctx);
  const render = (chunks: object[]): string => chunks.map((c) => build.sseData(build.rawJsonOf(c) ?? JSON.stringify(c))).join('');
  let frames = '';
  for await (const batch of build.readSseBatches(bodyOf(parts), (error) => error, build.streamChunkReader('up'), { name: 'up' })) frames += render(normalizer.pushAll(batch));
  const tail: object[] = [];
  normalizer.end(tail);
  return frames + render(tail);
}

async function main(): Promise<void> {
  const specs = gatewayFlags();
  if (specs.length === 0) throw new Error('usage: --gw=<label>=<root> (one or more)');
  const rounds = Number(flags('rounds')[0] ?? 60);
  const streams = Number(flags('streams')[0] ?? 500);
  const mode = flags('mode')[0] ?? 'burst';
  const all = events();
  // A burst is one read; paced, the reader sees one event per read (the body is read as it arrives).
  const parts = mode === 'paced' ? all : [Buffer.concat(all)];
  const builds = await Promise.all(specs.map((spec) => load(spec.label, spec.root)));
  const outputs = await Promise.all(builds.map(async (build) => (await oneStream(build, parts)).replace(/"call_[A-Za-z0-9]+"/g, '"call_X"')));
  for (const [i, output] of outputs.entries()) if (output !== outputs[0]) throw new Error(`${builds[i].label} writes other frames than ${builds[0].label}`);
  const perStream = new Map<string, number[]>(builds.map((build) => [build.label, []]));
  for (let r = 0; r < rounds + 2; r++) {
    for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
      const before = process.cpuUsage();
      for (let i = 0; i < streams; i++) await oneStream(build, parts);
      const used = process.cpuUsage(before);
      if (r >= 2) perStream.get(build.label)?.push((used.user + used.system) / streams); // 2 warm-up rounds
    }
  }
  const first = perStream.get(builds[0].label) ?? [];
  const lines = [`| build | CPU µs/stream (${mode}, median of ${rounds} × ${streams}) | ratio to ${builds[0].label} (paired per round: median, quartiles) |`, '|---|---:|---:|'];
  for (const build of builds) {
    const runs = perStream.get(build.label) ?? [];
    const ratios = runs.map((us, i) => us / first[i]).sort((a, b) => a - b);
    const quartiles = `${round(ratios[Math.floor(ratios.length / 4)], 3)}–${round(ratios[Math.floor((3 * ratios.length) / 4)], 3)}`;
    lines.push(`| ${build.label} | ${round(median(runs), 1)} | ${round(median(ratios), 3)} (${quartiles}) |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
