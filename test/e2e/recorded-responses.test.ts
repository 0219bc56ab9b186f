import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { RECORDED_DIR, recordedResponsesIndex, startRecordedUpstream, type RecordedResponsesEntry } from '../helpers/recorded-upstream.js';

// Real OpenAI Responses traffic (test/fixtures/recorded/openai-responses/, provenance in its
// index.json), served as the `/responses` of an `openai` provider: toolgate's native relay, not the
// chat bridge. Read as an agent reads it, with the official `openai` SDK: `responses.create()` for a
// JSON recording, `responses.stream()` + `finalResponse()` for a recorded event stream (whole, then
// split into seven reads at arbitrary byte offsets). Each recording's `expect` was read from the
// recording by hand: the output text, the reasoning summary text, every function_call's name and
// parsed arguments, the status. toolgate relays: nothing may be lost or changed, and what its store
// keeps (`GET /v1/responses/{id}`) is the output the client read.

const upstream = await startRecordedUpstream();
const gateway = await startGateway({
  yaml: configFor({ oai: { type: 'openai', baseUrl: upstream.baseURL, apiKey: 'sk-up' } }),
  logLevel: 'warn',
});
t.teardown(async () => {
  await gateway.close();
  await upstream.close();
});
const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'gw', maxRetries: 0 });

const SCHEMA = { type: 'object' as const, properties: {}, additionalProperties: true };

function request(entry: RecordedResponsesEntry) {
  const names = [...new Set(entry.expect.calls.map((call) => call.name))];
  return {
    model: 'oai/recorded-model',
    input: 'go',
    store: true,
    ...(names.length ? { tools: names.map((name) => ({ type: 'function' as const, name, parameters: SCHEMA, strict: false })) } : {}),
  };
}

function read(response: OpenAI.Responses.Response): unknown {
  let text = '';
  let summary = '';
  const calls: unknown[] = [];
  for (const item of response.output) {
    if (item.type === 'message') for (const part of item.content) text += part.type === 'output_text' ? part.text : '';
    if (item.type === 'reasoning') for (const part of item.summary) summary += part.text;
    if (item.type === 'function_call') calls.push({ name: item.name, args: JSON.parse(item.arguments) as unknown });
  }
  return { text, summary, calls, status: response.status };
}

/** The recording's events, parsed, in order (an SSE recording). */
function recordedEvents(entry: RecordedResponsesEntry): unknown[] {
  const body = readFileSync(new URL(entry.file, RECORDED_DIR), 'utf8');
  return body.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as unknown);
}

/** The events toolgate sent, read off the wire (not through the SDK, which builds on them): each frame's data, parsed. */
async function relayedEvents(entry: RecordedResponsesEntry): Promise<{ events: unknown[]; names: string[] }> {
  const reply = await fetch(`${gateway.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: 'Bearer gw', 'content-type': 'application/json' },
    body: JSON.stringify({ ...request(entry), stream: true }),
  });
  const frames = (await reply.text()).split('\n\n').filter((frame) => frame.trim() !== '');
  const field = (frame: string, name: string): string => frame.split('\n').find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? '';
  return { events: frames.map((frame) => JSON.parse(field(frame, 'data')) as unknown), names: frames.map((frame) => field(frame, 'event')) };
}

/** The response the recording holds: the JSON body, or the one its terminal event carries. */
function recorded(entry: RecordedResponsesEntry): { id: string; status: string; output: unknown[] } {
  const body = readFileSync(new URL(entry.file, RECORDED_DIR), 'utf8');
  if (entry.kind === 'json') return JSON.parse(body) as never;
  const events = body.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { type: string; response?: never });
  const terminal = events.find((event) => ['response.completed', 'response.incomplete', 'response.failed'].includes(event.type));
  if (!terminal?.response) throw new Error(`${entry.file}: no terminal event`);
  return terminal.response;
}

/** The stored copy, as GET /v1/responses/{id} gives it, is the recorded response: same id, output and status. */
async function stored(t: Test, entry: RecordedResponsesEntry, label: string): Promise<void> {
  const { id, status, output } = recorded(entry);
  const kept = await client.responses.retrieve(id);
  t.same(kept.output, output, `${label}: GET /v1/responses/{id} gives the recorded output`);
  t.equal(kept.status, status, `${label}: and the recorded status`);
}

const index = recordedResponsesIndex();
t.ok(index.length >= 10, 'at least 10 Responses exchanges');
t.ok(index.some((entry) => entry.kind === 'sse') && index.some((entry) => entry.kind === 'json'), 'JSON and event streams');

for (const entry of index) {
  t.test(`${entry.file} (${entry.source.repository})`, async (t) => {
    if (entry.kind === 'json') {
      upstream.play(entry);
      const response = await client.responses.create(request(entry));
      t.same(read(response), entry.expect, 'JSON: the answer as recorded');
      t.equal(upstream.last.path, '/v1/responses', 'served by the native relay');
      t.same(response.output, recorded(entry).output, 'JSON: the output items as recorded');
      upstream.play(entry);
      const raw = await fetch(`${gateway.baseURL}/responses`, { method: 'POST', headers: { authorization: 'Bearer gw', 'content-type': 'application/json' }, body: JSON.stringify(request(entry)) });
      t.strictSame(await raw.json(), recorded(entry), 'on the wire: the recorded body, unchanged');
      await stored(t, entry, 'JSON');
      return;
    }
    upstream.play(entry, 7);
    const { events, names } = await relayedEvents(entry);
    t.strictSame(events, recordedEvents(entry), 'on the wire: every recorded event, unchanged and in order');
    t.same(names, events.map((event) => (event as { type: string }).type), 'each frame named by its event type');
    for (const pieces of [1, 7]) {
      upstream.play(entry, pieces);
      const stream = client.responses.stream(request(entry));
      let summary = '';
      for await (const event of stream) {
        t.not(event.type, 'error', 'no error event');
        if (event.type === 'response.reasoning_summary_text.delta') summary += event.delta;
      }
      const response = await stream.finalResponse();
      t.same(read(response), entry.expect, `stream in ${pieces} read(s): the answer as recorded`);
      t.equal(summary, entry.expect.summary, `stream in ${pieces} read(s): the summary deltas add up`);
      t.equal(upstream.last.path, '/v1/responses', 'served by the native relay');
      await stored(t, entry, `stream in ${pieces} read(s)`);
    }
  });
}
