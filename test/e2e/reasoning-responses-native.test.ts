import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { startResponsesReasoningEmulator } from '../emulators/responses-reasoning-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// OpenAI /responses relayed natively, `store: false` with encrypted reasoning: clients that drop
// the reasoning items, or keep only their ids, get them back from the call ledger before the
// request goes upstream (JSON and SSE, the official `openai` SDK).

const TOOLS = [{ type: 'function' as const, name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }];

type Keep = 'nothing' | 'ids';

async function setup(t: Test, steps: number) {
  const upstream = await startResponsesReasoningEmulator({ steps });
  const gw = await startGateway({ yaml: configFor({ oa: { type: 'openai', baseUrl: upstream.url, apiKey: 'sk-test-0000' } }), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  return { upstream, client: new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 }) };
}

async function loop(client: OpenAI, stream: boolean, keep: Keep): Promise<{ answer: string; repairs: string[] }> {
  const input: any[] = [{ role: 'user', content: 'Plan the trip' }];
  const repairs: string[] = [];
  for (let round = 0; round < 5; round++) {
    const params = { model: 'oa/o4-mini', input, tools: TOOLS, store: false, include: ['reasoning.encrypted_content' as const] };
    let output: any[];
    if (!stream) {
      const { data, response } = await client.responses.create(params).withResponse();
      repairs.push(response.headers.get('x-toolgate-repairs') ?? '');
      output = data.output;
    } else {
      const { data, response } = await client.responses.create({ ...params, stream: true }).withResponse();
      repairs.push(response.headers.get('x-toolgate-repairs') ?? '');
      output = [];
      for await (const event of data) if (event.type === 'response.completed') output = event.response.output;
    }
    const calls = output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) return { answer: output.find((item) => item.type === 'message')?.content[0].text, repairs };
    for (const item of output) {
      if (item.type === 'reasoning' && keep === 'ids') input.push({ type: 'reasoning', id: item.id, summary: item.summary });
      if (item.type === 'function_call') input.push({ type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments });
    }
    for (const call of calls) input.push({ type: 'function_call_output', call_id: call.call_id, output: 'ok' });
  }
  throw new Error('the loop did not end');
}

for (const stream of [false, true]) {
  for (const keep of ['nothing', 'ids'] as const) {
    t.test(`store: false, a client that keeps ${keep === 'nothing' ? 'no reasoning items' : 'only the reasoning items\' ids'} (${stream ? 'SSE' : 'JSON'})`, async (t) => {
      const { upstream, client } = await setup(t, 2);
      const result = await loop(client, stream, keep);
      t.equal(result.answer, 'Done after 2 calls.');
      t.same(upstream.reasoningKept, [true, true, true], 'every call went back with the reasoning it was answered with');
      t.match(result.repairs[2], /reasoning_restored=2/, 'both calls of the turn: the header says so');
    });
  }
}

t.test('with a store (store: true) nothing is added: OpenAI keeps its own items', async (t) => {
  const { upstream, client } = await setup(t, 1);
  const first = await client.responses.create({ model: 'oa/o4-mini', input: 'Plan the trip', tools: TOOLS, include: ['reasoning.encrypted_content'] });
  const call: any = first.output.find((item) => item.type === 'function_call');
  await client.responses.create({ model: 'oa/o4-mini', input: [{ role: 'user', content: 'Plan the trip' }, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.call_id, output: 'ok' }], tools: TOOLS });
  t.notOk(upstream.requests[1].input.some((item: any) => item.type === 'reasoning'), 'sent as the client sent it');
});
