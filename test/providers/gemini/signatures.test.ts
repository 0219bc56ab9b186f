import t from 'tap';
import { request } from 'undici';
import type { ChatMessage, ChatRequest } from '../../../src/api/chat-types.js';
import { createGeminiAdapter, SKIP_SIGNATURE } from '../../../src/providers/gemini/index.js';
import { answer, GEMINI_MESSAGES, newSignature, startGeminiEmulator, usage, weatherScript } from '../../emulators/gemini-server.js';
import { assemble, collect, makeContext, makeSettings, userAsks, weatherTool } from './helpers.js';

// Thought signatures round trip: Gemini 3 answers carry them, the adapter records them in the
// call ledger under the issued tool call ids and puts them back when those calls return.

const MODEL = 'gemini-3-flash-preview';
const gemini = await startGeminiEmulator();
const adapter = createGeminiAdapter(makeSettings(gemini.baseUrl));
t.teardown(async () => {
  await adapter.close?.();
  await gemini.close();
});
t.beforeEach(() => {
  gemini.setScript();
  gemini.requests.length = 0;
});

const sentCalls = (n: number) => (gemini.requests[n].body.contents as Array<{ parts: Array<Record<string, any>> }>).flatMap((c) => c.parts).filter((p) => p.functionCall);

function followUp(first: ChatMessage, results: Array<[string, string]>, extra: ChatMessage[] = []): ChatRequest {
  return userAsks('Weather in Paris and Tokyo?', {
    messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }, first, ...results.map(([id, content]): ChatMessage => ({ role: 'tool', tool_call_id: id, content })), ...extra],
  });
}

t.test('JSON: the signature of the first parallel call is recorded and sent back', async (t) => {
  const context = makeContext(MODEL);
  const first = await adapter.complete(userAsks('Weather in Paris and Tokyo?'), context);
  const message = first.choices[0].message;
  const [a, b] = message.tool_calls ?? [];
  t.equal(context.ledger.entries.length, 1);
  const entry = context.ledger.entries[0];
  t.same(entry.message, message, 'the entry holds the message the client got');
  t.equal(entry.prefixFingerprint, '');
  t.equal(entry.provider, 'gemini');
  t.equal(entry.model, MODEL);
  t.same(Object.keys(entry.callMeta ?? {}), [a.id], 'only the first parallel call carries a signature');
  const signature = entry.callMeta?.[a.id].thoughtSignature;
  t.ok(signature && gemini.issuedSignatures.has(signature));
  t.notOk(JSON.stringify(first).includes(signature ?? '-'), 'the signature never reaches the client');

  const second = await adapter.complete(followUp(message, [[a.id, 'sunny'], [b.id, 'rainy']]), context);
  t.equal(second.choices[0].finish_reason, 'stop', 'the emulator accepted the history');
  t.same(sentCalls(1).map((p) => p.thoughtSignature), [signature, undefined]);
});

t.test('SSE: recorded before the last chunk, then sent back', async (t) => {
  const context = makeContext(MODEL);
  const stream = await adapter.stream(userAsks('Weather in Paris?', { stream: true }), context);
  const chunks = [];
  // Ledger entries seen when the finish chunk arrived (null: no finish chunk came at all).
  let entriesAtFinish: number | null = null;
  for await (const chunk of stream) {
    if (chunk.choices[0]?.finish_reason && entriesAtFinish === null) entriesAtFinish = context.ledger.entries.length;
    chunks.push(chunk);
  }
  t.equal(entriesAtFinish, 1, 'a finish chunk came, and the ledger was written before it');
  const { message } = assemble(chunks);
  const id = message.tool_calls?.[0].id ?? '';
  const signature = context.ledger.entries[0].callMeta?.[id]?.thoughtSignature;
  t.ok(signature && gemini.issuedSignatures.has(signature));
  const answerChunks = await collect(await adapter.stream({ ...followUp(message, [[id, '18C']]), stream: true }, context));
  t.match(assemble(answerChunks).message.content, /Here is the weather/);
  t.equal(sentCalls(1)[0].thoughtSignature, signature);
});

t.test('multi-step turn: every step keeps its own signature', async (t) => {
  // Step 1 calls get_weather; after one result, step 2 calls get_forecast; then text.
  gemini.setScript((input) => {
    const responses = input.body.contents.flatMap((c: any) => c.parts).filter((p: any) => p.functionResponse);
    if (responses.length === 1) {
      return { response: answer([{ functionCall: { name: 'get_forecast', args: { city: 'Paris' } }, thoughtSignature: newSignature(input.issuedSignatures) }], 'STOP', usage(5, 5, 3)) };
    }
    return weatherScript(input);
  });
  const tools = [weatherTool, { type: 'function' as const, function: { name: 'get_forecast', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const context = makeContext(MODEL);
  const step1 = (await adapter.complete(userAsks('Weather in Paris?', { tools }), context)).choices[0].message;
  const history: ChatMessage[] = [{ role: 'user', content: 'Weather in Paris?' }, step1, { role: 'tool', tool_call_id: step1.tool_calls![0].id, content: 'sunny' }];
  const step2 = (await adapter.complete(userAsks('x', { tools, messages: history }), context)).choices[0].message;
  t.equal(step2.tool_calls?.[0].function.name, 'get_forecast');
  history.push(step2, { role: 'tool', tool_call_id: step2.tool_calls![0].id, content: 'rain tomorrow' });
  const final = await adapter.complete(userAsks('x', { tools, messages: history }), context);
  t.equal(final.choices[0].finish_reason, 'stop');
  const signatures = sentCalls(2).map((p) => p.thoughtSignature);
  t.equal(signatures.length, 2);
  t.ok(signatures.every((s) => gemini.issuedSignatures.has(s)), 'both real signatures went back');
  t.not(signatures[0], signatures[1]);
});

t.test('a history from elsewhere gets the documented skip value', async (t) => {
  const foreign: ChatMessage = { role: 'assistant', content: null, tool_calls: [{ id: 'call_from_openai', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] };
  const result = await adapter.complete(followUp(foreign, [['call_from_openai', '18C']]), makeContext(MODEL));
  t.equal(result.choices[0].finish_reason, 'stop');
  t.equal(sentCalls(0)[0].thoughtSignature, SKIP_SIGNATURE);

  const broken = makeContext(MODEL);
  broken.ledger.failLookups = true;
  const again = await adapter.complete(followUp(foreign, [['call_from_openai', '18C']]), broken);
  t.equal(again.choices[0].finish_reason, 'stop', 'a ledger outage does not fail the request');
  t.ok(broken.logs.some((l) => l.level === 40 && /ledger lookup failed/.test(l.msg)));
});

t.test('the emulator enforces signatures like Gemini 3 does', async (t) => {
  const contents = [
    { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
    { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
  ];
  const send = async (model: string, body: unknown) => {
    const res = await request(`${gemini.baseUrl}/models/${model}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': gemini.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.statusCode, body: (await res.body.json()) as any };
  };
  const missing = await send(MODEL, { contents });
  t.equal(missing.status, 400);
  t.equal(missing.body.error.status, 'INVALID_ARGUMENT');
  t.equal(missing.body.error.message, GEMINI_MESSAGES.missingSignature('get_weather', 2));
  t.equal((await send('gemini-2.5-flash', { contents })).status, 200, 'older models do not validate');
  t.equal((await send(MODEL, { contents: [contents[0], contents[2]] })).body.error.message, GEMINI_MESSAGES.responseTurn);
  t.equal((await send(MODEL, { contents: [contents[0], { role: 'model', parts: [...contents[1].parts, ...contents[1].parts] }, contents[2]] })).body.error.message, GEMINI_MESSAGES.responseCount);
  t.equal((await send(MODEL, { contents: [contents[1], contents[2]] })).body.error.message, GEMINI_MESSAGES.callTurn);
  t.match((await send(MODEL, { contents, tools: [{ functionDeclarations: [{ name: 'bad name', description: '' }] }] })).body.error.message, `* GenerateContentRequest.tools[0].function_declarations[0].name: ${GEMINI_MESSAGES.invalidName}\n`);
  const keyless = await request(`${gemini.baseUrl}/models/${MODEL}:generateContent?key=${gemini.apiKey}`, { method: 'POST', body: JSON.stringify({ contents: [contents[0]] }) });
  await keyless.body.dump();
  t.equal(keyless.statusCode, 200, '?key= works upstream…');
  t.ok(gemini.requests.at(-1)?.keyInQuery, '…and is recorded so tests can forbid it');
});

t.test('enum values round trip through the emulator', async (t) => {
  const tool = { type: 'function' as const, function: { name: 'set_level', parameters: { type: 'object', properties: { city: { type: 'string' }, level: { type: 'integer', enum: [1, 2, 3] } }, required: ['city', 'level'], additionalProperties: false } } };
  const result = await adapter.complete(userAsks('Set it in Paris', { tools: [tool] }), makeContext('gemini-2.5-flash'));
  t.same(gemini.requests[0].body.tools[0].functionDeclarations[0].parameters.properties.level, { type: 'STRING', enum: ['1', '2', '3'] });
  t.same(sentCalls(0), []);
  t.same(JSON.parse(result.choices[0].message.tool_calls?.[0].function.arguments ?? '{}'), { city: 'Paris', level: 3 }, 'the model said "3", the client gets 3');
});
