import t from 'tap';
import OpenAI from 'openai';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { validateSchema, withoutOpenAINulls } from '../helpers/openapi.js';
import { startResponsesEmulator } from './emulator-responses.js';

// The openai SDK's own Responses loops (responses.create, JSON and stream; full history and
// previous_response_id) through toolgate on bridged and native upstreams. Every response and
// event the gateway builds is checked against the OpenAI spec.

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

interface Loop {
  final: string;
  rounds: number;
  responses: any[];
  events: any[];
}

async function loop(client: OpenAI, model: string, options: { stream: boolean; chain: boolean }): Promise<Loop> {
  const out: Loop = { final: '', rounds: 0, responses: [], events: [] };
  let input: any[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
  let previous: string | undefined;
  for (let i = 0; i < 5; i++) {
    const body: any = { model, input, tools: [WEATHER], ...(previous ? { previous_response_id: previous } : {}) };
    let response: any;
    if (options.stream) {
      const stream = await client.responses.create({ ...body, stream: true });
      for await (const event of stream as unknown as AsyncIterable<any>) {
        out.events.push(event);
        if (event.type === 'response.completed') response = event.response;
      }
    } else {
      response = await client.responses.create(body);
    }
    out.responses.push(response);
    const calls = response.output.filter((item: any) => item.type === 'function_call');
    if (calls.length === 0) {
      out.final = response.output_text ?? response.output.map((o: any) => o.content?.map((p: any) => p.text).join('') ?? '').join('');
      return out;
    }
    out.rounds++;
    const results = calls.map((call: any) => ({ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify({ city: JSON.parse(call.arguments).city, temperature_c: 21 }) }));
    if (options.chain) {
      previous = response.id;
      input = results;
    } else input = [...input, ...response.output, ...results];
  }
  throw new Error('loop did not finish');
}

/** Spec errors, without the nulls OpenAI itself sends but its spec does not allow (withoutOpenAINulls). */
function specErrors(schema: string, value: any): string[] {
  const copy = withoutOpenAINulls(value);
  delete copy?.output_text; // added by the SDK
  return validateSchema(schema, copy);
}

t.test('openai SDK responses loops', async (t) => {
  const hf = await startOpenAIEmulator({ apiKey: 'sk-hf' });
  const openai = await startResponsesEmulator({ apiKey: 'sk-oa' });
  const gw = await startGateway({ yaml: configFor({ hf: { baseUrl: hf.url, apiKey: 'sk-hf' }, openai: { type: 'openai', baseUrl: openai.url, apiKey: 'sk-oa' } }), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await hf.close();
    await openai.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'sk-test', maxRetries: 0 });

  for (const model of ['simulator/weather', 'simulator/weather:hermes', 'hf/Qwen/Qwen2.5-72B-Instruct', 'openai/gpt-4.1']) {
    for (const stream of [false, true]) {
      for (const chain of [false, true]) {
        const name = `${model} ${stream ? 'stream' : 'json'} ${chain ? 'previous_response_id' : 'full history'}`;
        t.test(name, async (t) => {
          const result = await loop(client, model, { stream, chain });
          t.equal(result.rounds, 1, 'one tool round');
          t.match(result.final, /21/, 'the answer quotes the tool result');
          const ids = result.responses.flatMap((r) => [r.id, ...r.output.map((o: any) => o.id), ...r.output.map((o: any) => o.call_id).filter(Boolean)]);
          t.equal(new Set(ids).size, ids.length, 'distinct ids');
          t.ok(ids.every((id) => /^(resp|msg|fc|rs|call)_/.test(id)), 'OpenAI-style id prefixes');
          for (const response of result.responses) t.same(specErrors('Response', response), [], `response ${response.id} matches the spec`);
          const bad = result.events.map((event) => ({ type: event.type, errors: specErrors('ResponseStreamEvent', event) })).filter((e) => e.errors.length > 0);
          t.same(bad, [], 'every event matches the spec');
          if (stream) {
            let expected = 0;
            const wrong = result.events.filter((event) => {
              if (event.type === 'response.created') expected = 0;
              return event.sequence_number !== expected++;
            });
            t.same(wrong, [], 'sequence numbers count from 0 in each response');
          }
        });
      }
    }
  }
});
