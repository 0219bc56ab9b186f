import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startOpenAIEmulator, type Reply, type Script } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { eventProblems, messageProblems } from './shapes.js';

// Stop reasons that tell the truth: an answer cut off by max_tokens (chat `length`) is `max_tokens`
// even with a (partial) call in it, a filtered one `refusal`, JSON and stream alike; and the gateway's
// limits judged on the chat request the Messages body becomes.

const WEATHER = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }];

t.test('a cut-off or filtered answer with a call in it', async (t) => {
  let next: Reply = { toolCalls: [] };
  const script: Script = () => next;
  const up = await startOpenAIEmulator({ apiKey: 'sk-up', script });
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: 'sk-up' } }), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await up.close();
  });
  const client = new Anthropic({ baseURL: gw.url, apiKey: 'x', maxRetries: 0 });
  const request = { model: 'up/m', max_tokens: 20, tools: WEATHER, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
  const cases: Array<[string, Reply, string]> = [
    ['cut off in the arguments', { toolCalls: [{ name: 'get_weather', arguments: '{"city": "Par' }], finishReason: 'length' }, 'max_tokens'],
    ['cut off after a whole call', { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], finishReason: 'length' }, 'max_tokens'],
    ['filtered', { text: 'I', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], finishReason: 'content_filter' }, 'refusal'],
    ['a whole call', { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, 'tool_use'],
  ];
  for (const [name, reply, stop] of cases) {
    next = reply;
    const message = await client.messages.create(request);
    t.same(messageProblems(message), [], `${name}: a valid Message`);
    t.equal(message.stop_reason, stop, `${name}: JSON`);
    const events: Anthropic.RawMessageStreamEvent[] = [];
    for await (const event of await client.messages.create({ ...request, stream: true })) events.push(event);
    t.same(eventProblems(events), [], `${name}: valid events`);
    const delta = events.find((event) => event.type === 'message_delta');
    t.equal(delta?.type === 'message_delta' ? delta.delta.stop_reason : undefined, stop, `${name}: stream`);
  }
});

t.test('limits.maxMessages is judged on the translated request', async (t) => {
  const up = await startOpenAIEmulator({ apiKey: 'sk-up' });
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: up.url, apiKey: 'sk-up' } }, 'limits:\n  maxMessages: 100\n'), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await up.close();
  });
  const turn = (calls: number) => {
    const ids = Array.from({ length: calls }, (_, i) => `toolu_${i}`);
    return [
      { role: 'user', content: 'Weather everywhere?' },
      { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'get_weather', input: { city: id } })) },
      { role: 'user', content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'sunny' })) },
    ];
  };
  const post = (messages: unknown[]) => fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'up/m', max_tokens: 50, tools: WEATHER, messages }) });
  const before = up.requests.length;
  const refused = await post(turn(2000));
  t.equal(refused.status, 400, '3 Messages messages that are 2,002 chat messages');
  const body = (await refused.json()) as any;
  t.equal(body.type, 'error');
  t.equal(body.error.type, 'invalid_request_error');
  t.match(body.error.message, /'messages'.*2002 chat messages.*limit of 100/);
  t.equal(up.requests.length, before, 'nothing went upstream');
  t.equal((await post(turn(98))).status, 200, '100 chat messages are within the limit');
  // Chat refuses the same request the same way.
  const chat = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'up/m', messages: Array.from({ length: 101 }, () => ({ role: 'user', content: 'x' })) }) });
  t.equal(chat.status, 400);
  t.equal(((await chat.json()) as any).error.code, 'array_above_max_length');
});
