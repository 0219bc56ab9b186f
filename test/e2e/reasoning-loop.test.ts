import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { startReasoningEmulator, type ReasoningRule } from '../emulators/reasoning-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { startRedis } from '../helpers/redis-server.js';

// Tool loops through toolgate with an agent written on the official `openai` SDK that rebuilds
// each assistant message from content and tool_calls (as typed agents do): the reasoning and the
// thought signatures the upstream answered with never come back from the client. Upstreams that
// need them get them back from the call ledger; one that refuses the field gets it removed.

const TOOLS = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];

interface LoopResult {
  answer: string | null;
  repairs: string[];
  statuses: number[];
}

async function agentLoop(client: OpenAI, model: string, stream: boolean, firstMessages: any[] = [{ role: 'user', content: 'Plan the trip' }]): Promise<LoopResult> {
  const messages: any[] = [...firstMessages];
  const repairs: string[] = [];
  const statuses: number[] = [];
  for (let round = 0; round < 6; round++) {
    let content: string | null = null;
    let calls: Array<{ id: string; name: string; arguments: string }> = [];
    if (!stream) {
      const { data, response } = await client.chat.completions.create({ model, messages, tools: TOOLS }).withResponse();
      repairs.push(response.headers.get('x-toolgate-repairs') ?? '');
      statuses.push(response.status);
      const message = data.choices[0].message;
      content = message.content;
      calls = (message.tool_calls ?? []).map((call: any) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
    } else {
      const { data, response } = await client.chat.completions.create({ model, messages, tools: TOOLS, stream: true }).withResponse();
      repairs.push(response.headers.get('x-toolgate-repairs') ?? '');
      statuses.push(response.status);
      for await (const chunk of data) {
        const delta: any = chunk.choices[0]?.delta;
        if (!delta) continue;
        if (typeof delta.content === 'string') content = (content ?? '') + delta.content;
        for (const part of delta.tool_calls ?? []) {
          calls[part.index] ??= { id: '', name: '', arguments: '' };
          if (part.id) calls[part.index].id = part.id;
          if (part.function?.name) calls[part.index].name += part.function.name;
          if (part.function?.arguments) calls[part.index].arguments += part.function.arguments;
        }
      }
    }
    if (calls.length === 0) return { answer: content, repairs, statuses };
    // The rebuild every typed agent does: role, content, tool_calls. Nothing else survives.
    messages.push({ role: 'assistant', content, tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) });
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: `result of ${call.arguments}` });
  }
  throw new Error('the loop did not end');
}

async function setup(t: Test, rule: ReasoningRule) {
  const upstream = await startReasoningEmulator({ rule, steps: 2 });
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  return { upstream, gw, client: new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 }) };
}

/** Every assistant tool-call message the upstream received carries exactly the reasoning issued with its call. */
function reasoningCameBack(t: Test, upstream: Awaited<ReturnType<typeof startReasoningEmulator>>): void {
  let checked = 0;
  for (const body of upstream.requests) {
    for (const message of body.messages) {
      if (message.role !== 'assistant' || !message.tool_calls) continue;
      t.equal(message.reasoning_content, upstream.issuedReasoning.get(message.tool_calls[0].id), 'the reasoning issued with that call');
      checked++;
    }
  }
  t.ok(checked >= 3, `${checked} assistant tool-call messages checked`);
}

for (const stream of [false, true]) {
  const mode = stream ? 'SSE' : 'JSON';

  t.test(`DeepSeek thinking mode (${mode}): the reasoning the client dropped goes back with its calls`, async (t) => {
    const { upstream, client } = await setup(t, 'deepseek');
    const result = await agentLoop(client, 'up/deepseek-v4-pro', stream);
    t.equal(result.answer, 'Done after 2 calls.');
    t.same(result.statuses, [200, 200, 200]);
    t.match(result.repairs[1], /reasoning_restored=1/);
    t.match(result.repairs[2], /reasoning_restored=2/);
    t.equal(upstream.requests.length, 3, 'no request was refused');
    reasoningCameBack(t, upstream);
  });

  t.test(`a model not known to need reasoning (${mode}): learned from its 400, retried once, remembered`, async (t) => {
    const { upstream, gw, client } = await setup(t, 'deepseek');
    const result = await agentLoop(client, 'up/house-thinker', stream);
    t.equal(result.answer, 'Done after 2 calls.');
    t.equal(upstream.requests.length, 4, 'one refused request, then every later one accepted');
    t.notOk(upstream.requests[1].messages[1].reasoning_content, 'the first try went as the client sent it');
    reasoningCameBack(t, { ...upstream, requests: upstream.requests.filter((_, i) => i !== 1) });
    t.ok(gw.logs.some((line) => line.includes('learned, retrying once')), 'the warn line says so');
    t.match(await (await fetch(`${gw.url}/metrics`)).text(), /^toolgate_reasoning_learned_models\{echo="required"\} 1$/m, 'the gauge shows it');
  });

  t.test(`Gemini 3 on its OpenAI-compatible endpoint (${mode}): thought signatures go back on the calls`, async (t) => {
    const { upstream, client } = await setup(t, 'gemini-signature');
    const result = await agentLoop(client, 'up/gemini-3-flash-preview', stream);
    t.equal(result.answer, 'Done after 2 calls.');
    t.equal(upstream.requests.length, 3, 'no request was refused');
    t.match(result.repairs[2], /reasoning_restored=2/);
    const last = upstream.requests[2].messages.filter((m: any) => m.role === 'assistant');
    t.same(
      last.map((m: any) => m.tool_calls[0].extra_content.google.thought_signature),
      last.map((m: any) => upstream.issuedSignatures.get(m.tool_calls[0].id)),
    );
  });

  t.test(`an upstream that refuses reasoning_content (${mode}): removed, learned from its 400`, async (t) => {
    const { upstream, client } = await setup(t, 'rejects-reasoning');
    // A client that does keep the field (it echoes whole messages).
    const history = [
      { role: 'user', content: 'Plan the trip' },
      { role: 'assistant', content: 'Sure.', reasoning_content: 'The user wants a plan.' },
      { role: 'user', content: 'Go on' },
    ];
    const first = await agentLoop(client, 'up/llama-4-scout', stream, history);
    t.equal(first.answer, 'Done after 2 calls.');
    t.equal(upstream.requests.length, 4, 'refused once, then sent without the field');
    t.ok(upstream.requests[0].messages[1].reasoning_content, 'the first try carried it');
    for (const body of upstream.requests.slice(1)) t.notOk(body.messages.some((m: any) => 'reasoning_content' in m), 'later requests never do');
  });
}

t.test('reasoning is restored only from the same gateway key', async (t) => {
  const upstream = await startReasoningEmulator({ rule: 'deepseek', steps: 1 });
  const yaml = configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, 'auth:\n  keys:\n    - name: a\n      key: key-a-0123456789abcdef\n    - name: b\n      key: key-b-0123456789abcdef\n');
  const gw = await startGateway({ yaml, logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const clientA = new OpenAI({ baseURL: gw.baseURL, apiKey: 'key-a-0123456789abcdef', maxRetries: 0 });
  const clientB = new OpenAI({ baseURL: gw.baseURL, apiKey: 'key-b-0123456789abcdef', maxRetries: 0 });
  const user = { role: 'user' as const, content: 'Plan the trip' };
  const answer = await clientA.chat.completions.create({ model: 'up/deepseek-v4-pro', messages: [user], tools: TOOLS });
  const call = answer.choices[0].message.tool_calls![0] as any;
  const history: any[] = [user, { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: call.function }] }, { role: 'tool', tool_call_id: call.id, content: 'ok' }];
  await t.rejects(clientB.chat.completions.create({ model: 'up/deepseek-v4-pro', messages: history, tools: TOOLS }), { status: 400 } as any, "key b gets the upstream's 400: a's reasoning is not b's");
  const a = await clientA.chat.completions.create({ model: 'up/deepseek-v4-pro', messages: history, tools: TOOLS });
  t.equal(a.choices[0].message.content, 'Done after 1 calls.', 'key a gets its own back');
});

for (const stream of [false, true]) {
  t.test(`Responses API bridged to a thinking model (${stream ? 'SSE' : 'JSON'}): reasoning items ↔ reasoning_content, restored when dropped`, async (t) => {
    const { upstream, client } = await setup(t, 'deepseek');
    const tools = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }];
    const create = async (input: any[]): Promise<any> => {
      if (!stream) return client.responses.create({ model: 'up/deepseek-v4-pro', input, tools, store: false });
      const events = await client.responses.create({ model: 'up/deepseek-v4-pro', input, tools, store: false, stream: true });
      let done: any;
      for await (const event of events) if (event.type === 'response.completed') done = event.response;
      return done;
    };
    const user = { role: 'user', content: 'Plan the trip' };
    const first = await create([user]);
    t.same(first.output.map((item: any) => item.type), ['reasoning', 'function_call']);
    const call = first.output[1];
    t.equal(first.output[0].content[0].text, upstream.issuedReasoning.get(call.call_id), 'the reasoning item carries the upstream reasoning');

    // A client that keeps only the call and its output (no reasoning item, store: false).
    const dropped = await create([user, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.call_id, output: 'ok' }]);
    t.equal(dropped.output.at(-1).type, 'function_call', 'the loop goes on: the upstream accepted the history');
    t.equal(upstream.requests[1].messages[1].reasoning_content, upstream.issuedReasoning.get(call.call_id), 'restored from the ledger');

    // A client that keeps the reasoning item: it reaches the chat upstream as reasoning_content.
    const kept = await create([user, { ...first.output[0] }, { type: 'function_call', call_id: 'call_elsewhere', name: 'lookup', arguments: '{}' }, { type: 'function_call_output', call_id: 'call_elsewhere', output: 'ok' }]);
    t.equal(kept.output.at(-1).type, 'function_call');
    t.equal(upstream.requests[2].messages[1].reasoning_content, first.output[0].content[0].text);
  });
}

t.test('the inspector shows the reasoning an answer carried: its length always, its text only with captureContent', async (t) => {
  const upstream = await startReasoningEmulator({ rule: 'deepseek', steps: 1 });
  t.teardown(() => upstream.close());
  for (const capture of [false, true]) {
    const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, `inspector:\n  enabled: true\n  captureContent: ${capture}\n`), logLevel: 'warn' });
    for (const stream of [false, true]) {
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'up/deepseek-v4-pro', stream, tools: TOOLS, messages: [{ role: 'user', content: 'Plan the trip' }] }),
      });
      await response.text();
      const record: any = await (await fetch(`${gw.url}/v1/toolgate/requests/${response.headers.get('x-request-id')}`)).json();
      const issued = [...upstream.issuedReasoning.values()].at(-1)!;
      t.equal(record.reasoning.length, issued.length, `${stream ? 'SSE' : 'JSON'}: the length`);
      if (capture) t.equal(record.reasoning.text, issued, 'the text with captureContent');
      else t.notMatch(record.reasoning.text, issued.slice(0, 20), 'no text without it');
    }
    await gw.close();
  }
});

t.test('on Redis: reasoning one instance answered is restored by another', async (t) => {
  const redis = await startRedis();
  const upstream = await startReasoningEmulator({ rule: 'deepseek', steps: 2 });
  const yaml = configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, `state: {type: redis, url: "${redis.url}", keyPrefix: "tg-reason:"}\n`);
  const a = await startGateway({ yaml, logLevel: 'warn' });
  const b = await startGateway({ yaml, logLevel: 'warn' });
  t.teardown(async () => {
    await a.close();
    await b.close();
    await upstream.close();
    await redis.close();
  });
  const clients = [a, b].map((gw) => new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 }));
  // Alternate instances each round, as a load balancer would.
  let round = 0;
  const alternating = new Proxy(clients[0], { get: (_, key) => (key === 'chat' ? clients[round++ % 2].chat : Reflect.get(clients[0], key)) });
  const result = await agentLoop(alternating, 'up/deepseek-v4-pro', true);
  t.equal(result.answer, 'Done after 2 calls.');
  t.equal(upstream.requests.length, 3, 'no request was refused');
  reasoningCameBack(t, upstream);
});

t.test('reasoning split out of the text (models.<name>.reasoning: split) is kept and restored the same way', async (t) => {
  const thoughts: string[] = [];
  let calls = 0;
  const upstream = await startOpenAIEmulator({
    validate: false,
    script: (body: any) => {
      const turn = body.messages.slice(body.messages.map((m: any) => m.role).lastIndexOf('user') + 1);
      const missing = turn.find((m: any) => m.role === 'assistant' && m.tool_calls && typeof m.reasoning_content !== 'string');
      if (missing) return { error: { status: 400, body: { error: { message: 'Missing `reasoning_content` field in the assistant message at message index 1.', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } } };
      if (turn.length > 0) return { text: 'Done.' };
      thoughts.push(`I will look it up (${++calls}).`);
      return { text: `<think>${thoughts.at(-1)}</think>`, toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] };
    },
  });
  const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, 'models:\n  thinker:\n    provider: up\n    model: deepseek-r1-distill\n    reasoning: split\n'), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 });
  for (const stream of [false, true]) {
    const before = upstream.requests.length;
    const result = await agentLoop(client, 'thinker', stream);
    t.equal(result.answer, 'Done.', stream ? 'SSE' : 'JSON');
    t.equal(upstream.requests.length - before, 2, 'no request was refused');
    t.equal(upstream.requests.at(-1)!.body.messages[1].reasoning_content, thoughts.at(-1), 'the split reasoning came back');
  }
});
