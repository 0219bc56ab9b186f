import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { isReask, readChatStream, TOOLS } from '../helpers/contract-rows.js';

// A re-asked stream never repeats itself (docs/contract.md#streams): the first answer's text was
// already sent; a re-ask that starts with the same words adds only what is new.

let second = 'One moment.';
const upstream = await startOpenAIEmulator({
  apiKey: 'k',
  script: (body) =>
    isReask(body)
      ? { text: second, toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }
      : { text: 'One moment.', toolCalls: [{ name: 'get_weather', arguments: {} }] },
});
const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }) });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

async function ask(): Promise<ReturnType<typeof readChatStream>> {
  const before = upstream.requests.length;
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up/m', stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS }),
  });
  const stream = readChatStream(await response.text());
  if (upstream.requests.length - before !== 2) throw new Error('expected the answer and one re-ask');
  return stream;
}

t.test('the re-ask says the same words: the client sees them once, then the good call', async (t) => {
  second = 'One moment.';
  const stream = await ask();
  t.equal(stream.content, 'One moment.');
  t.same(stream.calls, [{ name: 'get_weather', arguments: '{"city":"Paris"}' }]);
  t.equal(stream.done, 1);
});

t.test('the re-ask repeats and goes on: only what is new is added', async (t) => {
  second = 'One moment. Looking it up.';
  t.equal((await ask()).content, 'One moment. Looking it up.');
});

t.test('the re-ask says something else: shown whole after what was sent', async (t) => {
  second = 'Sure.';
  t.equal((await ask()).content, 'One moment.Sure.');
});
