import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { inputOf } from '../../src/messages/from-chat.js';
import { RepairBudget } from '../../src/util/bounded-json.js';
import { startOpenAIEmulator, type Script } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { eventProblems } from './shapes.js';

// A tool_use input is always an object, the same in the JSON answer and in the stream: a
// double-encoded or repairable native call reaches the client as the object it stands for, anything
// else as {} — said in x-toolgate-warnings on JSON answers.

t.test('inputOf', async (t) => {
  const seen: string[] = [];
  const options = { budget: new RepairBudget(), warn: (kind: string) => seen.push(kind) };
  t.same(inputOf('{"city":"Paris"}', options), { city: 'Paris' });
  t.same(inputOf('  ', options), {});
  t.same(seen, [], 'nothing to say');
  t.same(inputOf('"{\\"city\\":\\"Paris\\"}"', options), { city: 'Paris' }, 'double-encoded');
  t.same(inputOf("{'city': 'Paris',}", options), { city: 'Paris' }, 'repaired');
  t.same(inputOf('"{\'city\': \'Paris\'}"', options), { city: 'Paris' }, 'double-encoded and repaired');
  t.same(seen, ['tool_input_repaired', 'tool_input_repaired', 'tool_input_repaired']);
  seen.length = 0;
  for (const args of ['[1, 2]', '42', '"Paris"', 'null']) t.same(inputOf(args, options), {}, `${args} → {}`);
  t.same(seen, ['tool_input_replaced', 'tool_input_replaced', 'tool_input_replaced', 'tool_input_replaced']);
  t.same(inputOf("{'city': 'Paris'}"), {}, 'without a budget, nothing is repaired');
  seen.length = 0;
  t.same(inputOf('{"city": "Par', options), {}, 'cut off: never completed with a guess');
  t.same(seen, ['tool_input_replaced']);
});

t.test('JSON and stream alike, through the gateway', async (t) => {
  let args = '';
  const script: Script = () => ({ toolCalls: [{ name: 'get_weather', arguments: args }] });
  const up = await startOpenAIEmulator({ apiKey: 'sk-up', script });
  // The tool contract off: what the translation itself guarantees (with it on, a call that is not an
  // object is re-asked, and a double-encoded one repaired before the translation sees it).
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: 'sk-up' } }, 'contract:\n  enabled: false\n'), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await up.close();
  });
  const client = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
  const request = { model: 'up/m', max_tokens: 200, tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }], messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
  const cases: Array<[string, string, object, string | null]> = [
    ['an object', '{"city": "Paris"}', { city: 'Paris' }, null],
    ['double-encoded', JSON.stringify(JSON.stringify({ city: 'Paris' })), { city: 'Paris' }, 'tool_input_repaired=1'],
    ['repairable', "{'city': 'Paris'}", { city: 'Paris' }, 'tool_input_repaired=1'],
    ['an array', '["Paris"]', {}, 'tool_input_replaced=1'],
  ];
  for (const [name, sent, input, warning] of cases) {
    args = sent;
    const response = await client.messages.create(request).withResponse();
    const use = response.data.content.find((block) => block.type === 'tool_use');
    t.same(use?.type === 'tool_use' ? use.input : undefined, input, `${name}: JSON`);
    const warnings = response.response.headers.get('x-toolgate-warnings') ?? '';
    if (warning) t.ok(warnings.split(',').includes(warning), `${name}: said (${warnings})`);
    else t.notOk(warnings.includes('tool_input'), `${name}: nothing to say`);
    const events: Anthropic.RawMessageStreamEvent[] = [];
    for await (const event of await client.messages.create({ ...request, stream: true })) events.push(event);
    t.same(eventProblems(events), [], `${name}: valid events`);
    const json = events.map((event) => (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta' ? event.delta.partial_json : '')).join('');
    t.same(json === '' ? {} : JSON.parse(json), input, `${name}: the stream's input is the JSON answer's`);
    const final = await client.messages.stream(request).finalMessage();
    const streamed = final.content.find((block) => block.type === 'tool_use');
    t.same(streamed?.type === 'tool_use' ? streamed.input : undefined, input, `${name}: the SDK's stream helper assembles the same`);
  }
});
