import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// Issue 45 item 8: what is restored belongs to this conversation. Kimi K2 as vLLM and SGLang parse
// it names its calls `functions.lookup:0` in every conversation; a thinking model wants the
// reasoning of its calls back, and toolgate restores what the client dropped from the call
// ledger. Two conversations under one gateway key must never get each other's reasoning.

const TOOLS = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
const KIMI_ID = 'functions.lookup:0';

/** The reasoning the upstream gives with its call: it repeats the user's own words (personal data). */
const reasoningFor = (user: string): string => `The user said "${user}"; I will look it up.`;

function lastUser(body: any): string {
  const users = (body.messages as any[]).filter((m) => m.role === 'user');
  return String(users.at(-1)?.content ?? '');
}

const upstream = await startOpenAIEmulator({
  apiKey: 'k',
  validate: false,
  script: (body: any) => {
    const last = body.messages.at(-1);
    if (last.role !== 'user') return { text: 'Done.' };
    const message = { role: 'assistant', content: null, reasoning_content: reasoningFor(lastUser(body)), tool_calls: [{ id: KIMI_ID, type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] };
    if (body.stream !== true) {
      return { raw: { status: 200, body: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'kimi-k2-thinking', choices: [{ index: 0, message, finish_reason: 'tool_calls' }] } } };
    }
    const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'kimi-k2-thinking', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const sse =
      chunk({ role: 'assistant', reasoning_content: message.reasoning_content }, null) +
      chunk({ tool_calls: [{ index: 0, ...message.tool_calls[0] }] }, null) +
      chunk({}, 'tool_calls') +
      'data: [DONE]\n\n';
    return { raw: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: sse } };
  },
});
const gw = await startGateway({
  yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, 'models:\n  kimi:\n    provider: up\n    model: kimi-k2-thinking\n'),
  logLevel: 'warn',
});
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

const chat = async (messages: unknown[], stream = false): Promise<{ id: string; headers: Headers }> => {
  const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'kimi', messages, tools: TOOLS, stream }) });
  if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
  if (!stream) {
    const body: any = await response.json();
    return { id: body.choices[0].message.tool_calls?.[0]?.id ?? '', headers: response.headers };
  }
  let id = '';
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    for (const part of JSON.parse(line.slice(6)).choices[0]?.delta?.tool_calls ?? []) if (part.id) id = part.id;
  }
  return { id, headers: response.headers };
};

/** The history a typed agent sends back: content and tool_calls only (the reasoning dropped). */
const continued = (user: string, id: string) => [
  { role: 'user', content: user },
  { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
  { role: 'tool', tool_call_id: id, content: 'result' },
];

/** The reasoning the upstream got back on the assistant tool-call message of its last request. */
const restoredInLastRequest = (): unknown => upstream.requests.at(-1)?.body.messages.find((m: any) => m.role === 'assistant')?.reasoning_content;

t.test('counter-style ids are replaced by unique ones, JSON and stream', async (t) => {
  const json = await chat([{ role: 'user', content: 'hello' }]);
  const streamed = await chat([{ role: 'user', content: 'hello' }], true);
  for (const id of [json.id, streamed.id]) {
    t.not(id, KIMI_ID);
    t.match(id, /^call_[A-Za-z0-9]{24}$/);
  }
  t.not(json.id, streamed.id);
});

t.test('two conversations under one key: each gets its own reasoning back, never the other', async (t) => {
  const alice = 'My passport number is X1234567.';
  const bob = 'What is the capital of Peru?';
  const a = await chat([{ role: 'user', content: alice }]);
  const b = await chat([{ role: 'user', content: bob }]);
  await chat(continued(alice, a.id));
  t.equal(restoredInLastRequest(), reasoningFor(alice), "Alice's conversation gets Alice's reasoning back");
  await chat(continued(bob, b.id));
  t.equal(restoredInLastRequest(), reasoningFor(bob), "Bob's gets Bob's");
});

t.test("a call id from another conversation restores nothing of it", async (t) => {
  const alice = 'My card ends in 4242.';
  const a = await chat([{ role: 'user', content: alice }]);
  // Another conversation carrying that id (a client that reuses ids, a copied fixture): not Alice's history.
  const { headers } = await chat(continued('Tell me a joke.', a.id));
  t.equal(restoredInLastRequest(), undefined, "Alice's reasoning never reaches another conversation's request");
  t.notMatch(headers.get('x-toolgate-repairs') ?? '', /reasoning_restored/);
  // A Kimi-style id the client kept from elsewhere: no entry of any conversation answers it.
  await chat(continued('Tell me a joke.', KIMI_ID));
  t.equal(restoredInLastRequest(), undefined);
});

t.test("the call ledger's restores too: another conversation's calls are not put into this one", async (t) => {
  const alice = 'Look up my medical record 99-311.';
  const a = await chat([{ role: 'user', content: alice }]);
  // A client that lost the assistant's calls but kept the result's id, in another conversation.
  const { headers } = await chat([
    { role: 'user', content: 'Tell me a joke.' },
    { role: 'assistant', content: '' },
    { role: 'tool', tool_call_id: a.id, content: 'result' },
  ]);
  t.notMatch(headers.get('x-toolgate-repairs') ?? '', /restored_tool_calls/);
  t.notOk(upstream.requests.at(-1)?.body.messages.some((m: any) => m.role === 'assistant' && m.tool_calls?.some((c: any) => c.id === a.id)), 'no call of Alice reached the upstream');
  // Alice's own conversation, same loss: restored.
  const own = await chat([
    { role: 'user', content: alice },
    { role: 'assistant', content: '' },
    { role: 'tool', tool_call_id: a.id, content: 'result' },
  ]);
  t.match(own.headers.get('x-toolgate-repairs') ?? '', /restored_tool_calls/);
});
