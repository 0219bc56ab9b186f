import fc from 'fast-check';
import OpenAI from 'openai';
import t from 'tap';
import { startGeminiEmulator } from '../../emulators/gemini-server.js';
import { configFor, startGateway } from '../../helpers/gateway.js';
import { FRAMINGS, GEMINI_MUTATIONS, frameSse, mutateGeminiEvents, seeded, splitBytes, type Framing, type GeminiMutation } from '../../helpers/stream-mutator.js';
import { runToolLoop } from '../../helpers/tool-loop.js';
import { volume } from '../../helpers/volume.js';

// Gemini's stream in the shapes its API allows and sends (test/helpers/stream-mutator.ts: keys left
// out, the finish on an event of its own, extra fields, keys in another order), in any SSE framing,
// split into reads anywhere: a streamed tool loop through toolgate assembles to what the emulator's
// own stream gives, with the openai SDK reading the chat stream.

let plan: { mutations: Set<GeminiMutation>; framings: Set<Framing>; splits: number; seed: number } | undefined;
const emulator = await startGeminiEmulator({ apiKey: 'AIza-shapes-1234567890', reshape: (events) => reshape(events) });
const gateway = await startGateway({ yaml: configFor({ gemini: { type: 'gemini', baseUrl: emulator.baseUrl, apiKey: 'AIza-shapes-1234567890' } }), logLevel: 'warn' });
t.teardown(async () => {
  await gateway.close();
  await emulator.close();
});
const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'gw', maxRetries: 0 });

function reshape(events: readonly Record<string, unknown>[]): Buffer[] {
  if (plan === undefined) return [Buffer.from(events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join(''))];
  const random = seeded(plan.seed);
  const mutated = mutateGeminiEvents(events as Record<string, unknown>[], plan.mutations, random);
  return splitBytes(Buffer.from(frameSse(mutated.map((event) => JSON.stringify(event)), plan.framings, random)), plan.splits, random);
}

async function loop(): Promise<unknown> {
  const result = await runToolLoop(client, 'gemini/gemini-2.5-flash', 'What is the weather in Paris and in Tromsø?', true);
  return { final: result.final, steps: result.steps, calls: result.calls.map((calls) => calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])) };
}

t.test('property: a Gemini stream in any allowed shape gives the same tool loop', async (t) => {
  plan = undefined;
  const expected = await loop();
  t.match(expected, { steps: 1 }, 'the loop called the tool');
  await fc.assert(
    fc.asyncProperty(fc.subarray([...GEMINI_MUTATIONS]), fc.subarray([...FRAMINGS]), fc.integer({ min: 0, max: 20 }), fc.integer(), async (mutations, framings, splits, seed) => {
      plan = { mutations: new Set(mutations), framings: new Set(framings), splits, seed };
      t.same(await loop(), expected, [...mutations, ...framings].join(', ') || `${splits} splits`);
    }),
    { numRuns: volume(60, 12), seed: 4413 },
  );
  plan = undefined;
});
