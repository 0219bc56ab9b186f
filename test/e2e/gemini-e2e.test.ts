import OpenAI from 'openai';
import t from 'tap';
import { answer, newSignature, startGeminiEmulator, usage } from '../emulators/gemini-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { runToolLoop } from '../helpers/tool-loop.js';

// The openai SDK runs a multi-step, parallel tool loop through toolgate against the emulated
// gemini-3 model, which enforces Gemini's schema subset, turn pairing and thought signatures.

const PLAN_TOOL = {
  type: 'function' as const,
  function: {
    name: 'plan_trip',
    description: 'Plan a trip',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      $defs: { unit: { type: 'string', enum: ['c', 'f'], default: 'c' } },
      properties: {
        city: { type: 'string' },
        days: { enum: [1, 3, 7], description: 'trip length' },
        unit: { $ref: '#/$defs/unit' },
        note: { type: ['string', 'null'] },
        budget: { type: 'number', exclusiveMinimum: 0, default: 100 },
      },
      required: ['city', 'days'],
    },
  },
};
const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', additionalProperties: false, properties: { city: { type: 'string' } }, required: ['city'] } },
};

type Json = Record<string, any>;
/** Step 1: parallel get_weather per city; step 2: plan_trip (days as the string "3"); step 3: text. */
function tripScript({ body, issuedSignatures }: { body: Json; issuedSignatures: Set<string> }) {
  const contents: Json[] = body.contents;
  const lastUserText = contents.map((c, i) => ({ c, i })).filter(({ c }) => c.role === 'user' && c.parts.some((p: Json) => typeof p.text === 'string')).pop()!.i;
  const steps = contents.slice(lastUserText + 1).filter((c) => c.role === 'user' && c.parts.some((p: Json) => p.functionResponse)).length;
  const sig = () => ({ thoughtSignature: newSignature(issuedSignatures) });
  if (steps === 0) {
    return { response: answer([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, ...sig() }, { functionCall: { name: 'get_weather', args: { city: 'Nice' } } }], 'STOP', usage(40, 12, 8)) };
  }
  if (steps === 1) {
    return { response: answer([{ functionCall: { name: 'plan_trip', args: { city: 'Nice', days: '3', unit: 'c', note: null } }, ...sig() }], 'STOP', usage(60, 10, 8)) };
  }
  const results = contents.flatMap((c) => c.parts.filter((p: Json) => p.functionResponse).map((p: Json) => JSON.stringify(p.functionResponse.response)));
  return { response: answer([{ text: `Plan ready. Seen: ${results.join(' | ')}`, ...sig() }], 'STOP', usage(80, 20, 8)) };
}

const gemini = await startGeminiEmulator({ apiKey: 'AIza-test-key-1234567890', script: tripScript as any });
const gw = await startGateway({ yaml: configFor({ gemini: { type: 'gemini', baseUrl: gemini.baseUrl, apiKey: 'AIza-test-key-1234567890' } }) });
t.teardown(async () => {
  await gw.close();
  await gemini.close();
});
const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'x', maxRetries: 0 });

for (const stream of [false, true]) {
  t.test(`gemini-3 multi-step parallel tool loop (${stream ? 'stream' : 'json'})`, async (t) => {
    const before = gemini.requests.length;
    const seenArgs: any[] = [];
    const result = await runToolLoop(client, 'gemini/gemini-3-pro-preview', 'Plan a trip to Paris or Nice', stream, {
      tools: [WEATHER_TOOL, PLAN_TOOL],
      runTool: (name, args) => {
        seenArgs.push({ name, args });
        return name === 'get_weather' ? `{"city":"${args.city}","temp_c":22}` : `booked ${args.days} days`;
      },
    });
    t.equal(result.steps, 2, 'two tool steps');
    t.equal(result.calls[0].length, 2, 'parallel calls in step one');
    t.same(seenArgs[2], { name: 'plan_trip', args: { city: 'Nice', days: 3, unit: 'c', note: null } }, 'the numeric enum value is mapped back to a number');
    t.match(result.final, /booked 3 days/);
    t.match(result.final, /Paris/);
    const sent = gemini.requests.slice(before);
    t.equal(sent.length, 3, 'one upstream call per step');
    for (const request of sent) {
      t.equal(request.headers['x-goog-api-key'], 'AIza-test-key-1234567890');
      t.notOk(request.keyInQuery, 'the key never goes in the URL');
    }
    const params = sent[0].body.tools[0].functionDeclarations.find((d: any) => d.name === 'plan_trip').parameters;
    t.notOk('additionalProperties' in params || '$schema' in params || '$defs' in params, 'JSON-Schema-only keywords converted away');
    t.same(params.properties.days.enum, ['1', '3', '7']);
    t.equal(params.properties.note.nullable, true);
    t.equal(String(params.properties.unit.type).toLowerCase(), 'string', '$ref inlined');
  });
}
