import t, { type Test } from 'tap';
import type { ChatChunk, ChunkDelta, FinishReason } from '../../src/api/chat-types.js';
import { errors } from '../../src/errors.js';
import { ResponseEventSynthesizer } from '../../src/responses/events.js';
import { baseResponse } from '../../src/responses/from-chat.js';
import { parseResponsesRequest } from '../../src/responses/schema.js';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { openResponsesErrors, responseResourceSchema } from '../helpers/open-responses.js';
import { validateSchema, withoutOpenAINulls } from '../helpers/openapi.js';

// Every response object the bridge builds (response.created, in_progress, completed, incomplete,
// failed; JSON, stored, streamed) against the Open Responses spec's ResponseResource schema
// (test/fixtures/openresponses), and the stream `error` event in the spec's nested shape.

const chunk = (delta: ChunkDelta, finish: FinishReason | null = null): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const REQUIRED = responseResourceSchema().required as string[];

function synth(body: Record<string, unknown> = {}): ResponseEventSynthesizer {
  return new ResponseEventSynthesizer(baseResponse(parseResponsesRequest({ model: 'hf/x', input: 'hi', ...body }), 'resp_1', 1700000000, undefined));
}

function responsesOf(events: ReadonlyArray<Record<string, unknown>>): Record<string, unknown>[] {
  return events.flatMap((event) => (event.response ? [event.response as Record<string, unknown>] : []));
}

function check(t: Test, response: Record<string, unknown>, label: string): void {
  t.same(REQUIRED.filter((key) => !(key in response)), [], `${label}: every required field is there`);
  t.same(openResponsesErrors(response), [], `${label}: matches ResponseResource`);
}

t.test('the spec lists the fields issue #47 names as required', async (t) => {
  for (const key of ['presence_penalty', 'frequency_penalty', 'top_logprobs', 'max_tool_calls', 'safety_identifier', 'prompt_cache_key', 'completed_at', 'usage', 'user']) t.ok(REQUIRED.includes(key), key);
});

t.test('created, in_progress, completed and incomplete objects', async (t) => {
  const s = synth();
  const events = [...s.start(), ...s.feed(chunk({ content: 'Hi' })), ...s.feed(chunk({}, 'stop'))];
  const end = s.end();
  events.push(...end.events, s.terminal(end.response));
  const [created, inProgress, completed] = responsesOf(events);
  check(t, created, 'response.created');
  check(t, inProgress, 'response.in_progress');
  check(t, completed, 'response.completed');
  t.match(created, { completed_at: null, usage: null, user: null, presence_penalty: 0, frequency_penalty: 0, top_logprobs: 0, max_tool_calls: null, safety_identifier: null, prompt_cache_key: null });
  t.equal(typeof completed.completed_at, 'number');
  t.equal(completed.usage, null, 'no usage from the upstream: null, not left out');

  const cut = synth();
  const cutEvents = [...cut.start(), ...cut.feed(chunk({ content: 'Half' })), ...cut.feed(chunk({}, 'length'))];
  const cutEnd = cut.end();
  cutEvents.push(...cutEnd.events, cut.terminal(cutEnd.response));
  check(t, responsesOf(cutEvents).at(-1)!, 'response.incomplete');
});

t.test('a failed response and the error event in the spec shape, the flat fields kept', async (t) => {
  const s = synth();
  s.start();
  s.feed(chunk({ content: 'Partial' }));
  const { response, events } = s.fail(errors.upstreamBadResponse('hf', 'a broken chunk'));
  check(t, response, 'response.failed');
  t.match(response, { status: 'failed', completed_at: null, usage: null });
  const error = events[0];
  t.match(error, { type: 'error', code: 'upstream_bad_response', message: /broken chunk/, param: null });
  t.same(error.error, { type: 'upstream_error', code: 'upstream_bad_response', message: error.message, param: null }, 'nested: {type, code, message, param}');
  t.same(validateSchema('ResponseStreamEvent', error), [], "still OpenAI's ResponseErrorEvent");
  t.same(validateSchema('ResponseStreamEvent', withoutOpenAINulls(events[1])), []);
});

t.test('request settings are echoed as used; penalties reach the chat upstream', async (t) => {
  const hf = await startOpenAIEmulator({ apiKey: 'sk-hf' });
  const gw = await startGateway({ yaml: configFor({ hf: { baseUrl: hf.url, apiKey: 'sk-hf' } }), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await hf.close();
  });
  const body = { model: 'hf/Qwen/Qwen2.5-72B-Instruct', input: 'Weather in Paris?', presence_penalty: 0.5, frequency_penalty: -0.25, safety_identifier: 'user-7', prompt_cache_key: 'codex-session', user: 'u1', max_tool_calls: 3 };
  const res = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  t.equal(res.status, 200);
  const json = (await res.json()) as Record<string, unknown>;
  check(t, json, 'JSON');
  t.match(json, { presence_penalty: 0.5, frequency_penalty: -0.25, safety_identifier: 'user-7', prompt_cache_key: 'codex-session', user: 'u1', max_tool_calls: 3 });
  t.match(hf.requests.at(-1)?.body, { presence_penalty: 0.5, frequency_penalty: -0.25 });
  t.notOk('max_tool_calls' in (hf.requests.at(-1)?.body ?? {}), 'a cap on built-in tools is not a chat field');
  const stored = await fetch(`${gw.baseURL}/responses/${String(json.id)}`);
  check(t, (await stored.json()) as Record<string, unknown>, 'GET');

  const streamed = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, model: 'simulator/weather', stream: true }) });
  const events = (await streamed.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { type: string; response?: unknown });
  for (const event of events) if (event.response) check(t, event.response as Record<string, unknown>, event.type);

  const bad = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, presence_penalty: 3 }) });
  t.equal(bad.status, 400);
  t.match(await bad.json(), { error: { param: 'presence_penalty' } });
  const badCap = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, max_tool_calls: 0 }) });
  t.equal(badCap.status, 400);
  t.match(await badCap.json(), { error: { param: 'max_tool_calls' } });
});
