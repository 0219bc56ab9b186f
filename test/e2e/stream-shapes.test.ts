import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import OpenAI from 'openai';
import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { CHUNK_MUTATIONS, FRAMINGS, frameSse, mutateChunks, seeded, splitBytes, type ChunkMutation, type Framing } from '../helpers/stream-mutator.js';
import { volume } from '../helpers/volume.js';
import { assembleChat, assembleMessages, assembleResponses, chatChunksFor, completionFor, toolsFor, type Answer, type Doors } from './stream-shapes-doors.js';

// Property: whatever shape an upstream's stream takes within what the spec and real providers allow,
// the client assembles the same answer. An answer (text with multi-byte characters, reasoning,
// tool calls, a finish reason) is streamed by a local upstream as api.openai.com shapes it (every key
// written out), then again with any subset of the mutations in test/helpers/stream-mutator.ts (keys
// left out where the spec allows — finish_reason, index, role, type, id after the first chunk,
// logprobs, usage —, null vs absent, keys in another order, unknown extra fields, the usage chunk
// before the finish, the finish on the last delta, reasoning / reasoning_content / reasoning_details
// spellings) in any subset of the SSE framings (\r\n, \r, data: without space, comments, event:,
// id: and retry: lines, JSON over several data: lines, a BOM, no [DONE]) split into reads anywhere,
// inside a multi-byte character included. Read through all three doors with the official SDKs'
// stream helpers (chat: openai's stream().finalChatCompletion(); Responses: openai's
// responses.stream().finalResponse(); Messages: @anthropic-ai/sdk's messages.stream().finalMessage()),
// the mutated stream assembles to what the original does, which equals the JSON answer; no helper
// throws. Before the fix, an absent finish_reason lost the calls and the finish (the grok-3-mini shape).

let current: { sse: Buffer[]; json: string } = { sse: [], json: '{}' };
const upstream = await startRawUpstream((_req, res, body) => {
  const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(current.json);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const pieces = current.sse;
  let at = 0;
  // One piece per turn of the event loop, so the gateway mostly reads them apart.
  const next = (): void => {
    if (at >= pieces.length) {
      res.end();
      return;
    }
    res.write(pieces[at++]);
    setImmediate(next);
  };
  next();
});
const gateway = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.baseURL, apiKey: 'sk-up' } }), logLevel: 'warn' });
t.teardown(async () => {
  await gateway.close();
  await upstream.close();
});
const doors: Doors = {
  openai: new OpenAI({ baseURL: gateway.baseURL, apiKey: 'gw', maxRetries: 0 }),
  anthropic: new Anthropic({ baseURL: gateway.url, apiKey: 'gw', maxRetries: 0 }),
  model: 'up/example-model',
};

/** The answer through every door, streamed as `sse` (and as JSON): each door's assembled answers. */
async function throughDoors(answer: Answer, sse: Buffer[]): Promise<Record<string, { stream: unknown; json: unknown }>> {
  current = { sse, json: JSON.stringify(completionFor(answer)) };
  const tools = toolsFor(answer);
  return {
    chat: await assembleChat(doors, tools),
    responses: await assembleResponses(doors, tools),
    messages: await assembleMessages(doors, tools),
  };
}

const word = fc.constantFrom('Hello', 'wörld', '日本語', '🙂', 'ok', 'Paris,', 'naïve', 'über', '—', 'x');
const answers: fc.Arbitrary<Answer> = fc
  .record({
    text: fc.array(word, { maxLength: 8 }).map((words) => words.join(' ')),
    reasoning: fc.array(word, { maxLength: 5 }).map((words) => words.join(' ')),
    calls: fc.array(
      fc.record({ name: fc.constantFrom('get_weather', 'search_docs'), args: fc.dictionary(fc.constantFrom('city', 'q', 'n'), fc.oneof(word, fc.integer({ min: 0, max: 99 })), { maxKeys: 3 }) }),
      { maxLength: 2 },
    ),
    cut: fc.boolean(),
  })
  .map(({ text, reasoning, calls, cut }) => ({
    text: text === '' && calls.length === 0 ? 'ok' : text,
    reasoning,
    calls,
    finish: calls.length > 0 ? ('tool_calls' as const) : cut ? ('length' as const) : ('stop' as const),
  }));

const plan = fc.record({
  mutations: fc.subarray([...CHUNK_MUTATIONS]),
  framings: fc.subarray([...FRAMINGS]),
  splits: fc.integer({ min: 0, max: 12 }),
  seed: fc.integer(),
  wordsPerChunk: fc.integer({ min: 1, max: 3 }),
});

t.test('property: a mutated stream assembles to what the original does, and to the JSON answer, at every door', async (t) => {
  await fc.assert(
    fc.asyncProperty(answers, plan, async (answer, { mutations, framings, splits, seed, wordsPerChunk }) => {
      const random = seeded(seed);
      const chunks = chatChunksFor(answer, wordsPerChunk);
      const original = [Buffer.from(frameSse(chunks.map((chunk) => JSON.stringify(chunk)), new Set(), random))];
      const mutated = mutateChunks(chunks, new Set<ChunkMutation>(mutations), random);
      const body = Buffer.from(frameSse(mutated.map((chunk) => JSON.stringify(chunk)), new Set<Framing>(framings), random));
      const before = await throughDoors(answer, original);
      const after = await throughDoors(answer, splitBytes(body, splits, random));
      for (const door of Object.keys(before)) {
        t.same(before[door].stream, before[door].json, `${door}: the original stream assembles to the JSON answer`);
        t.same(after[door].stream, before[door].stream, `${door}: the mutated stream (${[...mutations, ...framings].join(', ') || 'split only'}) assembles to the original's answer`);
      }
    }),
    { numRuns: volume(200, 40), seed: 4411 },
  );
});

// Named shapes (test/fixtures/streams/README.md): each as sent, and split into reads at random
// points, assembles to the answer it says at every door, and to the same answer given as JSON.
const NAMED: Array<{ file: string; answer: Answer }> = [
  { file: 'grok-3-mini-tool-call.sse', answer: { text: '', reasoning: 'The user wants the weather in Paris.', calls: [{ name: 'get_weather', args: { city: 'Paris' } }], finish: 'tool_calls' } },
  { file: 'text-no-finish-key.sse', answer: { text: 'Hi there', reasoning: '', calls: [], finish: 'stop' } },
  { file: 'cerebras-length.sse', answer: { text: 'Once upon a time', reasoning: '', calls: [], finish: 'length' } },
];

for (const { file, answer } of NAMED) {
  t.test(`${file}: the answer arrives whole at every door`, async (t) => {
    const sse = readFileSync(new URL(`../fixtures/streams/${file}`, import.meta.url));
    const random = seeded(file.length);
    for (const pieces of [[sse], splitBytes(sse, 6, random), splitBytes(sse, 40, random)]) {
      const doors = await throughDoors(answer, pieces);
      t.same(doors.chat.stream, { text: answer.text, reasoning: answer.reasoning, calls: answer.calls, finish: answer.finish }, 'chat: what the stream said');
      for (const door of Object.keys(doors)) t.same(doors[door].stream, doors[door].json, `${door}: the stream and the JSON answer agree`);
    }
  });
}
