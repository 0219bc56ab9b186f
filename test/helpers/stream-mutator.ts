// Rewrites an upstream's stream into another one that says the same thing, in the shapes real
// providers send: what a client assembles from the result must equal what it assembles from the
// original. Two layers, each a list of named mutations a test picks from:
//
// Chunk mutations (on the parsed `chat.completion.chunk` objects, as the spec and real providers allow):
// - finish-absent:        `finish_reason` left out where it is null (xAI, Cerebras, Groq)
// - index-absent:         a choice's `index` left out (it defaults to 0 in practice)
// - role-absent:          `delta.role` left out (the spec makes it optional)
// - logprobs-absent:      `logprobs: null` left out
// - usage-absent:         `usage: null` left out of chunks that carry none
// - id-absent-after-first: the chunk `id` only on the first chunk
// - tool-type-absent:     a tool call's `type` left out
// - tool-id-repeated:     every fragment of a call repeats its id (several vLLM-served models)
// - tool-index-absent:    tool call deltas without `index` (Gemini's OpenAI-compatible endpoint): a
//                         call's first delta carries its id, its fragments follow it
// - nulls-written:        absent optional keys written as null (`content`, `refusal`, `tool_calls`, `usage`)
// - keys-reordered:       every object's keys in another order
// - extra-fields:         unknown fields at chunk, choice and delta level (`x_groq`, `stop_reason`, …)
// - usage-before-finish:  the usage chunk (`choices: []`) sent before the finish chunk
// - finish-on-last-delta: the finish_reason on the last delta's chunk, no separate finish chunk
// - reasoning-as-reasoning: `reasoning_content` spelled `reasoning` (OpenRouter, Groq, newer vLLM)
// - reasoning-as-details: `reasoning_content` spelled `reasoning_details` parts (OpenRouter, MiniMax)
// - reasoning-both:       `reasoning` and `reasoning_content` side by side with the same text (vLLM 0.10)
//
// SSE framings (on the bytes): `\r\n` or `\r` line ends, `data:` without its space, comment lines,
// `event:`, `id:` and `retry:` fields, an event's JSON over several `data:` lines, a leading BOM, no
// `[DONE]`, and the body split into reads anywhere, inside a multi-byte character included.

export const CHUNK_MUTATIONS = [
  'finish-absent',
  'index-absent',
  'role-absent',
  'logprobs-absent',
  'usage-absent',
  'id-absent-after-first',
  'tool-type-absent',
  'tool-id-repeated',
  'tool-index-absent',
  'nulls-written',
  'keys-reordered',
  'extra-fields',
  'usage-before-finish',
  'finish-on-last-delta',
  'reasoning-as-reasoning',
  'reasoning-as-details',
  'reasoning-both',
] as const;
export type ChunkMutation = (typeof CHUNK_MUTATIONS)[number];

export const FRAMINGS = ['crlf', 'cr', 'no-space', 'comments', 'event-lines', 'id-retry', 'multiline-data', 'bom', 'no-done'] as const;
export type Framing = (typeof FRAMINGS)[number];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A deterministic generator from a seed (mulberry32): the same seed, the same mutation. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const choicesOf = (chunk: Json): Json[] => (Array.isArray(chunk.choices) ? (chunk.choices as Json[]) : []);
const deltaOf = (choice: Json): Json => (isObject(choice.delta) ? choice.delta : {});
const callsOf = (delta: Json): Json[] => (Array.isArray(delta.tool_calls) ? (delta.tool_calls as Json[]) : []);

/** The chunks with every mutation in `mutations` applied, in the order of CHUNK_MUTATIONS (the input is not changed). */
export function mutateChunks(input: readonly Json[], mutations: ReadonlySet<ChunkMutation>, random: () => number): Json[] {
  let chunks = structuredClone(input) as Json[];
  const has = (name: ChunkMutation): boolean => mutations.has(name);
  if (has('finish-on-last-delta')) chunks = finishOnLastDelta(chunks);
  if (has('usage-before-finish')) chunks = usageBeforeFinish(chunks);
  const ids = new Map<number, unknown>();
  chunks.forEach((chunk, position) => {
    if (has('usage-absent') && chunk.usage === null) delete chunk.usage;
    if (has('id-absent-after-first') && position > 0) delete chunk.id;
    if (has('nulls-written') && !('usage' in chunk)) chunk.usage = null;
    if (has('extra-fields')) Object.assign(chunk, { x_groq: { id: `req_${position}` }, provider: 'Example' });
    choicesOf(chunk).forEach((choice, at) => {
      if (has('finish-absent') && choice.finish_reason === null) delete choice.finish_reason;
      if (has('index-absent') && choice.index === at) delete choice.index;
      if (has('logprobs-absent') && choice.logprobs === null) delete choice.logprobs;
      if (has('extra-fields')) Object.assign(choice, { stop_reason: null, matched_stop: null });
      const delta = deltaOf(choice);
      if (has('role-absent')) delete delta.role;
      if (has('nulls-written')) {
        for (const key of ['content', 'refusal', 'tool_calls']) if (!(key in delta)) delta[key] = null;
      }
      if (has('extra-fields')) delta.x_trace = { seen: true };
      respellReasoning(delta, mutations);
      for (const call of callsOf(delta)) {
        const index = typeof call.index === 'number' ? call.index : 0;
        if (typeof call.id === 'string') ids.set(index, call.id);
        else if (has('tool-id-repeated') && ids.has(index)) call.id = ids.get(index);
        if (has('tool-type-absent')) delete call.type;
        if (has('tool-index-absent')) delete call.index;
      }
    });
  });
  if (has('keys-reordered')) chunks = chunks.map((chunk) => reordered(chunk, random) as Json);
  return chunks;
}

function respellReasoning(delta: Json, mutations: ReadonlySet<ChunkMutation>): void {
  const text = delta.reasoning_content;
  if (typeof text !== 'string') return;
  if (mutations.has('reasoning-as-details')) {
    delete delta.reasoning_content;
    delta.reasoning_details = [{ type: 'reasoning.text', text, format: 'unknown', index: 0 }];
  } else if (mutations.has('reasoning-as-reasoning')) {
    delete delta.reasoning_content;
    delta.reasoning = text;
  } else if (mutations.has('reasoning-both')) {
    delta.reasoning = text;
  }
}

/** The finish chunk (one choice, empty delta) folded into the chunk before it, when that one has the same single choice. */
function finishOnLastDelta(chunks: Json[]): Json[] {
  const at = chunks.findIndex((chunk) => choicesOf(chunk).some((choice) => typeof choice.finish_reason === 'string'));
  if (at < 1) return chunks;
  const finish = choicesOf(chunks[at]);
  const before = choicesOf(chunks[at - 1]);
  if (finish.length !== 1 || before.length !== 1 || Object.keys(deltaOf(finish[0])).length > 0 || before[0].index !== finish[0].index) return chunks;
  before[0].finish_reason = finish[0].finish_reason;
  return [...chunks.slice(0, at), ...chunks.slice(at + 1)];
}

/** A usage-only chunk moved before the first chunk that carries a finish_reason. */
function usageBeforeFinish(chunks: Json[]): Json[] {
  const usage = chunks.findIndex((chunk) => choicesOf(chunk).length === 0 && isObject(chunk.usage));
  const finish = chunks.findIndex((chunk) => choicesOf(chunk).some((choice) => typeof choice.finish_reason === 'string'));
  if (usage < 0 || finish < 0 || usage < finish) return chunks;
  const out = chunks.filter((_, i) => i !== usage);
  out.splice(finish, 0, chunks[usage]);
  return out;
}

function reordered(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => reordered(item, random));
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  const out: Json = {};
  for (const key of keys) out[key] = reordered(value[key], random);
  return out;
}

/** The SSE body for these events' data in the given framings. */
export function frameSse(data: readonly string[], framings: ReadonlySet<Framing>, random: () => number): string {
  const eol = framings.has('crlf') ? '\r\n' : framings.has('cr') ? '\r' : '\n';
  const field = framings.has('no-space') ? 'data:' : 'data: ';
  let body = framings.has('bom') ? '\uFEFF' : '';
  if (framings.has('comments')) body += `: OPENROUTER PROCESSING${eol}${eol}`;
  if (framings.has('id-retry')) body += `retry: 3000${eol}${eol}`;
  const events = framings.has('no-done') ? [...data] : [...data, '[DONE]'];
  events.forEach((text, i) => {
    const lines: string[] = [];
    if (framings.has('event-lines')) lines.push('event: message');
    if (framings.has('id-retry')) lines.push(`id: ${i}`);
    if (framings.has('multiline-data') && text !== '[DONE]') {
      // JSON re-indented so each line is its own data: line; the reader joins them with "\n".
      for (const line of JSON.stringify(JSON.parse(text), null, 1).split('\n')) lines.push(`${field}${line}`);
    } else {
      lines.push(`${field}${text}`);
    }
    body += lines.join(eol) + eol + eol;
    if (framings.has('comments') && random() < 0.5) body += `: keep-alive${eol}${eol}`;
  });
  return body;
}

/** The body's bytes cut into reads at `count` random points (any byte: inside a UTF-8 character too). */
export function splitBytes(body: Buffer, count: number, random: () => number): Buffer[] {
  const points = new Set<number>();
  for (let i = 0; i < count && body.length > 1; i++) points.add(1 + Math.floor(random() * (body.length - 1)));
  const sorted = [...points].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const point of sorted) {
    out.push(body.subarray(from, point));
    from = point;
  }
  out.push(body.subarray(from));
  return out;
}

// Gemini's streamGenerateContent events (each a whole GenerateContentResponse holding the new parts):
// - index-absent:      a candidate's `index` left out
// - role-absent:       `content.role` left out
// - usage-last-only:   `usageMetadata` only on the last event
// - ids-first-only:    `responseId` and `modelVersion` only on the first event
// - finish-separate:   the finishReason on an event of its own, with an empty text part (as Gemini 2.5 sends)
// - extra-fields:      `safetyRatings`, `citationMetadata`, `avgLogprobs`, `createTime`
// - keys-reordered:    every object's keys in another order
export const GEMINI_MUTATIONS = ['index-absent', 'role-absent', 'usage-last-only', 'ids-first-only', 'finish-separate', 'extra-fields', 'keys-reordered'] as const;
export type GeminiMutation = (typeof GEMINI_MUTATIONS)[number];

export function mutateGeminiEvents(input: readonly Json[], mutations: ReadonlySet<GeminiMutation>, random: () => number): Json[] {
  let events = structuredClone(input) as Json[];
  const has = (name: GeminiMutation): boolean => mutations.has(name);
  const candidatesOf = (event: Json): Json[] => (Array.isArray(event.candidates) ? (event.candidates as Json[]) : []);
  if (has('finish-separate')) {
    const last = events[events.length - 1];
    const candidate = last === undefined ? undefined : candidatesOf(last)[0];
    if (candidate !== undefined && typeof candidate.finishReason === 'string') {
      const finish = candidate.finishReason;
      delete candidate.finishReason;
      events.push({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: finish, index: 0 }], usageMetadata: last.usageMetadata, modelVersion: last.modelVersion, responseId: last.responseId });
    }
  }
  events.forEach((event, position) => {
    if (has('usage-last-only') && position < events.length - 1) delete event.usageMetadata;
    if (has('ids-first-only') && position > 0) {
      delete event.responseId;
      delete event.modelVersion;
    }
    if (has('extra-fields')) event.createTime = '2026-11-28T10:00:00.000000Z';
    for (const candidate of candidatesOf(event)) {
      if (has('index-absent')) delete candidate.index;
      if (has('role-absent') && isObject(candidate.content)) delete candidate.content.role;
      if (has('extra-fields')) Object.assign(candidate, { safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }], citationMetadata: { citationSources: [] }, avgLogprobs: -0.12 });
    }
  });
  if (has('keys-reordered')) events = events.map((event) => reordered(event, random) as Json);
  return events;
}

/** How one stream is reshaped: the chunk mutations, the framings, the reads and the seed for the rest. */
export interface StreamShape {
  mutations: Set<ChunkMutation>;
  framings: Set<Framing>;
  splits: number;
  seed: number;
}

/** A random shape per call from TOOLGATE_TEST_STREAM_SHAPES=<seed>; undefined when it is not set. */
export function streamShapesFromEnv(env: NodeJS.ProcessEnv = process.env): (() => StreamShape) | undefined {
  const seed = Number(env.TOOLGATE_TEST_STREAM_SHAPES);
  if (env.TOOLGATE_TEST_STREAM_SHAPES === undefined || !Number.isInteger(seed)) return undefined;
  const random = seeded(seed);
  const some = <T>(all: readonly T[]): Set<T> => new Set(all.filter(() => random() < 0.4));
  return () => ({ mutations: some(CHUNK_MUTATIONS), framings: some(FRAMINGS), splits: Math.floor(random() * 12), seed: Math.floor(random() * 2 ** 31) });
}

/** The SSE bytes, as reads, of these chat chunks in this shape. */
export function reshapedStream(chunks: readonly Json[], shape: StreamShape): Buffer[] {
  const random = seeded(shape.seed);
  const mutated = mutateChunks(chunks, shape.mutations, random);
  return splitBytes(Buffer.from(frameSse(mutated.map((chunk) => JSON.stringify(chunk)), shape.framings, random)), shape.splits, random);
}
