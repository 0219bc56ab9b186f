import fc from 'fast-check';
import OpenAI from 'openai';
import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { FRAMINGS, frameSse, seeded, splitBytes, type Framing } from '../helpers/stream-mutator.js';
import { volume } from '../helpers/volume.js';
import { startResponsesEmulator } from './emulator-responses.js';

// Responses events as a native upstream (OpenAI's /responses) may frame them: a generic
// `event: message` line (or none) instead of the event's type, \r\n or \r line ends, comments, id:
// and retry: lines, an event's JSON over several data: lines, a BOM, keys in another order, split into
// reads anywhere. toolgate relays them and reads them for its store: a tool loop continued with
// previous_response_id (which needs the stored response) must come to the same answer, and the
// openai SDK's stream helper must assemble the same response as from the emulator's own framing.
// Before the fix an `event: message` line named the event: the client got `event: message` for
// every event, and the terminal event went unseen (nothing stored, no metrics).

let plan: { framings: Set<Framing>; splits: number; seed: number; reorder: boolean } | undefined;
// `plan` decides, per run, how the emulator frames its events (undefined: its own framing).
const emulator = await startResponsesEmulator({ apiKey: 'sk-native', reshape: (events) => reshape(events) });
const gateway = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: emulator.url, apiKey: 'sk-native' } }), logLevel: 'warn' });
t.teardown(async () => {
  await gateway.close();
  await emulator.close();
});
const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'gw', maxRetries: 0 });

function reshape(events: readonly Record<string, unknown>[]): Buffer[] {
  if (plan === undefined) return [Buffer.from(events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join(''))];
  const random = seeded(plan.seed);
  const data = events.map((event) => JSON.stringify(plan?.reorder ? reordered(event, random) : event));
  return splitBytes(Buffer.from(frameSse(data, plan.framings, random)), plan.splits, random);
}

function reordered(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => reordered(item, random));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  entries.sort(() => random() - 0.5);
  return Object.fromEntries(entries.map(([key, item]) => [key, reordered(item, random)]));
}

const WEATHER = { type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false };

/** A two-step tool loop by previous_response_id, streamed: what the SDK assembled at each step (ids left out). */
async function loop(): Promise<unknown[]> {
  const seen: unknown[] = [];
  const first = await client.responses.stream({ model: 'openai/gpt-4.1', input: 'What is the weather in Oslo?', tools: [WEATHER] }).finalResponse();
  const call = first.output.find((item) => item.type === 'function_call');
  seen.push(first.output.map((item) => (item.type === 'function_call' ? { call: item.name, args: item.arguments } : { type: item.type })));
  if (!call || call.type !== 'function_call') return seen;
  const second = await client.responses
    .stream({ model: 'openai/gpt-4.1', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temperature_c":4}' }], tools: [WEATHER] })
    .finalResponse();
  seen.push(second.status, second.output_text);
  return seen;
}

/** The event names the gateway sends for one streamed request, and the types their data say. */
async function relayedNames(): Promise<{ names: string[]; types: string[] }> {
  const reply = await fetch(`${gateway.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer gw' },
    body: JSON.stringify({ model: 'openai/gpt-4.1', input: 'Weather in Rome?', tools: [WEATHER], stream: true }),
  });
  const names: string[] = [];
  const types: string[] = [];
  // The gateway writes \n line ends; an event's data may span several data: lines.
  for (const block of (await reply.text()).split('\n\n')) {
    const lines = block.split('\n');
    const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
    if (data.length === 0) continue;
    names.push(lines.find((line) => line.startsWith('event: '))?.slice(7) ?? '(none)');
    types.push(String((JSON.parse(data.join('\n')) as { type?: unknown }).type));
  }
  return { names, types };
}

t.test('property: however the native upstream frames its events, the loop and the stored chain come out the same', async (t) => {
  plan = undefined;
  const expected = await loop();
  t.equal(expected.length, 3, 'the loop called the tool and answered');
  await fc.assert(
    fc.asyncProperty(fc.subarray([...FRAMINGS].filter((framing) => framing !== 'no-done')), fc.integer({ min: 0, max: 30 }), fc.integer(), fc.boolean(), async (framings, splits, seed, reorder) => {
      plan = { framings: new Set(framings), splits, seed, reorder };
      const framed = `framed with ${framings.join(', ') || 'defaults'}, ${splits} splits${reorder ? ', keys reordered' : ''}`;
      t.same(await loop(), expected, framed);
      const { names, types } = await relayedNames();
      t.same(names, types, `${framed}: each event relayed under its own type`);
    }),
    { numRuns: volume(40, 8), seed: 4412 },
  );
  plan = undefined;
});
