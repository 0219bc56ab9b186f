import type { ServerResponse } from 'node:http';
import t from 'tap';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { isReask, readChatStream, TOOLS } from '../helpers/contract-rows.js';

// A stream under the contract, step by step (the test writes each upstream event and waits for
// what the client has read; nothing is timed): content reaches the client while the upstream is
// still writing; a call reaches it only once its answer is complete and valid; a broken call is
// never shown, the re-ask continues the same stream, and it ends with exactly one [DONE].

interface Pending {
  res: ServerResponse;
  body: any;
}
const waiting: Array<(pending: Pending) => void> = [];
const arrived: Pending[] = [];
const upstream = await startRawUpstream((_req, res, body) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const pending = { res, body: JSON.parse(body) };
  const next = waiting.shift();
  if (next) next(pending);
  else arrived.push(pending);
});
const nextRequest = (): Promise<Pending> => {
  const ready = arrived.shift();
  return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
};
const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.baseURL, apiKey: 'k' } }) });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

let sequence = 0;
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: `chatcmpl-${++sequence}`, object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const callHeader = (id: string) => chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'get_weather', arguments: '' } }] });
const callArgs = (text: string) => chunk({ tool_calls: [{ index: 0, function: { arguments: text } }] });

/** Reads the client's stream until `until` holds for what arrived so far. */
class ClientReader {
  text = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }
  async until(until: (text: string) => boolean): Promise<void> {
    while (!until(this.text)) {
      const { done, value } = await this.reader.read();
      if (done) return;
      this.text += this.decoder.decode(value, { stream: true });
    }
  }
}

t.test('content streams at once; calls only after they validate; a re-ask continues the stream; one [DONE]', async (t) => {
  const response = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up/m', stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS }),
  });
  const first = await nextRequest();
  t.notOk(isReask(first.body));
  first.res.write(chunk({ role: 'assistant', content: '' }));
  first.res.write(chunk({ content: 'Checking the weather. ' }));
  const client = new ClientReader((await response).body!);
  await client.until((text) => text.includes('Checking the weather.'));
  t.pass('content reached the client while the upstream was still writing');

  // A call without its required `city`, then more content as a marker: were the call's deltas
  // handed on, they would have reached the client before the marker.
  first.res.write(callHeader('call_bad'));
  first.res.write(callArgs('{}'));
  first.res.write(chunk({ content: 'marker-1' }));
  await client.until((text) => text.includes('marker-1'));
  t.notMatch(client.text, /tool_calls/, 'the call is held while its answer is not complete');
  first.res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);

  const second = await nextRequest();
  t.ok(isReask(second.body), 'the same model is asked again');
  t.match(second.body.messages.at(-1).content, /must have required property 'city'/);
  t.equal(second.body.stream, true);
  second.res.write(callHeader('call_good'));
  second.res.write(callArgs('{"city":'));
  second.res.write(callArgs('"Paris"}'));
  second.res.write(chunk({ content: 'marker-2' }));
  await client.until((text) => text.includes('marker-2'));
  t.notMatch(client.text, /tool_calls/, 'the good call too waits for its answer to complete');
  second.res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
  await client.until(() => false);

  const stream = readChatStream(client.text);
  t.equal(stream.done, 1, 'exactly one [DONE]');
  t.same(stream.calls, [{ name: 'get_weather', arguments: '{"city":"Paris"}' }], 'only the valid call, whole');
  t.notMatch(client.text, /call_bad/, 'the broken call was never shown');
  t.equal(stream.finish, 'tool_calls');
  t.equal(new Set(stream.chunks.map((c) => c.id)).size, 1, 'one completion id across the re-ask');
  t.match(stream.content, /^Checking the weather\. marker-1marker-2$/);
});

t.test('a stream cut off by length is handed on as it is: no re-ask, its finish_reason kept', async (t) => {
  const response = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'up/m', stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS }),
  });
  const first = await nextRequest();
  first.res.write(callHeader('call_cut'));
  first.res.write(callArgs('{"city": "Par'));
  first.res.end(`${chunk({}, 'length')}data: [DONE]\n\n`);
  const stream = readChatStream(await (await response).text());
  t.equal(stream.finish, 'length');
  t.same(stream.calls, [{ name: 'get_weather', arguments: '{"city": "Par' }]);
  t.equal(stream.done, 1);
  t.equal(arrived.length + waiting.length, 0, 'no re-ask was sent');
});
