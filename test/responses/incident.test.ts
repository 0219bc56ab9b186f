import t from 'tap';
import OpenAI from 'openai';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startResponsesEmulator } from './emulator-responses.js';
import { chatModel, PROMPT, readFile, READ_FILE_TOOL, responsesModel, runIncidentClient } from './incident.js';

// The incident end to end, on a native OpenAI upstream (Responses emulator) and a bridged Hugging
// Face one (chat emulator): 3 tool rounds + 1 answer through toolgate; a loop without restoration.

const NO_RESTORE = 'repair:\n  restoreHistory: false\n';

async function gatewayFor(t: { teardown(fn: () => unknown): void }, upstream: { type: string; baseUrl: string }, more = ''): Promise<TestGateway> {
  const gw = await startGateway({ yaml: configFor({ up: { ...upstream, apiKey: 'sk-up' } }, more), logLevel: 'warn' });
  t.teardown(() => gw.close());
  return gw;
}

const UPSTREAMS = [
  { name: 'OpenAI (native /responses)', model: 'oa/gpt-4.1' },
  { name: 'Hugging Face (bridged to chat)', model: 'hf/Qwen/Qwen3-Coder-30B-A3B-Instruct' },
];

t.test('the incident', async (t) => {
  const oa = await startResponsesEmulator({ apiKey: 'sk-up', script: responsesModel });
  const hf = await startOpenAIEmulator({ apiKey: 'sk-up', script: chatModel });
  t.teardown(async () => {
    await oa.close();
    await hf.close();
  });
  const providers = { oa: { type: 'openai', baseUrl: oa.url, apiKey: 'sk-up' }, hf: { type: 'openai-compatible', baseUrl: hf.url, apiKey: 'sk-up' } };
  const fixed = await startGateway({ yaml: configFor(providers), logLevel: 'warn' });
  const broken = await startGateway({ yaml: configFor(providers, NO_RESTORE), logLevel: 'warn' });
  t.teardown(async () => {
    await fixed.close();
    await broken.close();
  });

  for (const upstream of UPSTREAMS) {
    t.test(upstream.name, async (t) => {
      for (const stream of [false, true]) {
        t.test(`through toolgate (${stream ? 'SSE' : 'JSON'}): 3 tool rounds + 1 answer`, async (t) => {
          const run = await runIncidentClient(fixed.baseURL, upstream.model, { stream });
          t.equal(run.toolRounds, 3, 'three reads');
          t.equal(run.requests, 4, 'then the answer');
          t.same(run.reads, [1, 251, 501], 'each chunk read once');
          t.match(run.answer, /^Summary: all 600 lines read in 3 chunks/);
          t.match(run.headers[1], /item_type_inferred=1/, 'the untyped output typed (the {role, content} prompt is valid as it is)');
          t.match(run.headers[2], /history_restored=2/, 'round 3 gets call 1 and its output back');
          t.match(run.headers[3], /history_restored=4/, 'the answer round sees all three chunks');
        });
      }

      t.test('restoreHistory: false → the same client loops until its cap', async (t) => {
        const run = await runIncidentClient(broken.baseURL, upstream.model, { maxRounds: 8 });
        t.equal(run.answer, null, 'never answers');
        t.equal(run.requests, 8, 'hits the cap');
        t.same(run.reads.slice(0, 4), [1, 251, 1, 251], 're-reads the start of the file forever');
      });
    });
  }
});

t.test('talking to the native upstream directly, the untyped output is refused', async (t) => {
  const emulator = await startResponsesEmulator({ apiKey: 'sk-up', script: responsesModel });
  t.teardown(() => emulator.close());
  const client = new OpenAI({ baseURL: emulator.url, apiKey: 'sk-up', maxRetries: 0 });
  const first = await client.responses.create({ model: 'gpt-4.1', input: PROMPT, tools: [READ_FILE_TOOL] });
  const call = first.output.find((item) => item.type === 'function_call');
  if (call?.type !== 'function_call') throw new Error('no call');
  const error = await client.responses
    .create({ model: 'gpt-4.1', input: [{ role: 'user', content: PROMPT }, call, { call_id: call.call_id, output: readFile(JSON.parse(call.arguments)) }] as any, tools: [READ_FILE_TOOL] })
    .catch((e: unknown) => e);
  t.type(error, OpenAI.BadRequestError);
  t.match((error as InstanceType<typeof OpenAI.BadRequestError>).error, { message: "Missing required parameter: 'input[2].role'.", param: 'input[2].role' });
});

t.test('strict mode: a request that needs restoring is a 400, not a silent change; a valid trimmed one passes as is', async (t) => {
  const emulator = await startOpenAIEmulator({ apiKey: 'sk-up', script: chatModel });
  t.teardown(() => emulator.close());
  const gw = await gatewayFor(t, { type: 'openai-compatible', baseUrl: emulator.url }, 'repair:\n  mode: strict\n');
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const model = 'up/Qwen/Qwen3-Coder-30B-A3B-Instruct';
  const prompt = { type: 'message' as const, role: 'user' as const, content: PROMPT };
  const easy = await client.responses.create({ model, input: [{ role: 'user', content: PROMPT }], tools: [READ_FILE_TOOL] });
  t.equal(easy.status, 'completed', "a {role, content} item (OpenAI's easy input message) is valid as it is");
  const untyped = await client.responses.create({ model, input: [prompt, { call_id: 'call_x', output: 'x' }] as any, tools: [READ_FILE_TOOL] }).catch((e: unknown) => e);
  t.match(untyped, { status: 400, code: 'invalid_tool_history' }, 'an untyped tool output is refused');
  let latest: any[] = [];
  const calls: any[] = [];
  for (let round = 0; round < 2; round++) {
    const res = await client.responses.create({ model, input: [prompt, ...latest], tools: [READ_FILE_TOOL] });
    const call = res.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no call');
    calls.push(call);
    latest = [call, { type: 'function_call_output', call_id: call.call_id, output: readFile(JSON.parse(call.arguments)) }];
  }
  // Valid items that leave earlier calls out: the client's choice, sent as is.
  const trimmed = await client.responses.create({ model, input: [prompt, ...latest], tools: [READ_FILE_TOOL] }).withResponse();
  t.equal(trimmed.response.headers.get('x-toolgate-repairs'), null, 'a valid trimmed history is not restored');
  // A call without its output is invalid: strict mode refuses what would be restored.
  const unanswered = await client.responses.create({ model, input: [prompt, calls[0], ...latest], tools: [READ_FILE_TOOL] }).catch((e: unknown) => e);
  t.match(unanswered, { status: 400, code: 'invalid_tool_history', message: /nothing was restored.*history_restored/ });
});
