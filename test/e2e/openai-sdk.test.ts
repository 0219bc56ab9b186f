import OpenAI from 'openai';
import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { validateSchema } from '../helpers/openapi.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { collectStream, runToolLoop } from '../helpers/tool-loop.js';

// The openai SDK drives tool loops through toolgate to strict local emulators of each upstream.

const openaiEmu = await startOpenAIEmulator({ apiKey: 'sk-emu-openai-1234567890' });
const hfEmu = await startOpenAIEmulator({ apiKey: 'hf_emu_token_1234567890' });
const togetherEmu = await startOpenAIEmulator({ apiKey: 'tg-emu-key-1234567890' });
const gw = await startGateway({
  yaml: configFor({
    openai: { type: 'openai', baseUrl: openaiEmu.url, apiKey: 'sk-emu-openai-1234567890' },
    hf: { baseUrl: hfEmu.url, apiKey: 'hf_emu_token_1234567890' },
    together: { baseUrl: togetherEmu.url, apiKey: 'tg-emu-key-1234567890' },
  }),
});
t.teardown(async () => {
  await gw.close();
  await Promise.all([openaiEmu.close(), hfEmu.close(), togetherEmu.close()]);
});
const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'client-key-must-not-travel', maxRetries: 0 });

t.test('non-stream tool loop through openai/<id>', async (t) => {
  const before = openaiEmu.requests.length;
  const { final, steps, responses } = await runToolLoop(client, 'openai/gpt-4o-mini', 'What is the weather in Paris?', false);
  t.equal(steps, 1, 'one tool step');
  t.match(final, /Paris/);
  const sent = openaiEmu.requests.slice(before);
  t.equal(sent.length, 2, 'two upstream calls: the call and the answer');
  t.equal(sent[0].body.model, 'gpt-4o-mini');
  t.equal(sent[0].headers.authorization, 'Bearer sk-emu-openai-1234567890', 'the provider key, not the client one');
  for (const body of responses) t.same(validateSchema('CreateChatCompletionResponse', body), [], 'response matches the OpenAPI spec');
});

t.test('stream tool loop with parallel calls through openai/<id>', async (t) => {
  const { final, steps, calls, chunks } = await runToolLoop(client, 'openai/gpt-4o-mini', 'What is the weather in Paris and Tokyo?', true);
  t.equal(steps, 1);
  t.equal(calls[0].length, 2, 'two parallel calls in one step');
  t.same(calls[0].map((c) => JSON.parse(c.function.arguments).city).sort(), ['Paris', 'Tokyo']);
  t.match(final, /Paris/);
  t.match(final, /Tokyo/);
  for (const chunk of chunks) t.same(validateSchema('CreateChatCompletionStreamResponse', chunk), [], 'chunk matches the OpenAPI spec');
});

t.test('hf/… and together/… reach their own base URLs with their own keys and the model id intact', async (t) => {
  const cases = [
    { model: 'hf/Qwen/Qwen2.5-72B-Instruct:together', emu: hfEmu, id: 'Qwen/Qwen2.5-72B-Instruct:together', key: 'hf_emu_token_1234567890' },
    { model: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo', emu: togetherEmu, id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', key: 'tg-emu-key-1234567890' },
  ];
  for (const c of cases) {
    for (const stream of [false, true]) {
      const before = c.emu.requests.length;
      const { final } = await runToolLoop(client, c.model, 'Weather in Oslo?', stream);
      t.match(final, /Oslo/);
      const sent = c.emu.requests.slice(before);
      t.ok(sent.length >= 2);
      for (const request of sent) {
        t.equal(request.body.model, c.id, `${c.model}: model id unchanged`);
        t.equal(request.headers.authorization, `Bearer ${c.key}`);
      }
    }
  }
});

t.test('stream_options.include_usage is honoured', async (t) => {
  const messages = [{ role: 'user' as const, content: 'hi' }];
  const withUsage = await collectStream(await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } }));
  const last = withUsage.chunks[withUsage.chunks.length - 1];
  t.same(last.choices, []);
  t.ok(last.usage && last.usage.total_tokens > 0, 'usage chunk at the end');
  const without = await collectStream(await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages, stream: true }));
  t.notOk(without.chunks.some((c) => c.choices.length === 0), 'no usage chunk when not asked');
  t.notOk(without.chunks.some((c) => 'usage' in c), 'no usage field when not asked');
});

t.test('the client Authorization and secrets never reach logs or the upstream', async (t) => {
  const joined = gw.logs.join('\n');
  t.notMatch(joined, /sk-emu-openai-1234567890/);
  t.notMatch(joined, /hf_emu_token_1234567890/);
  t.notMatch(joined, /client-key-must-not-travel/);
  for (const request of [...openaiEmu.requests, ...hfEmu.requests]) {
    t.notMatch(JSON.stringify(request.headers), /client-key-must-not-travel/);
  }
  const line = gw.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.url === '/v1/chat/completions');
  t.ok(line, 'one log line per request');
  t.ok(line.reqId && line.model && line.provider && typeof line.latencyMs === 'number' && line.status === 200);
});
