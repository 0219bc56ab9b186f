import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { startResponsesEmulator } from '../responses/emulator-responses.js';

// Issue 14 §6: advisory findings change nothing in the request, so they used to pass silently (the
// seed bug: an assistant message that is only `<agent_framework._types.ChatMessage object at 0x…>`).
// They are surfaced: x-toolgate-warnings, a warn log line, and toolgate_repairs_total by kind.

const gw = await startGateway({ yaml: configFor({}), logLevel: 'info' });
t.teardown(() => gw.close());

const REPR = '<agent_framework._types.ChatMessage object at 0x10c394210>';

function post(body: object): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const corrupted = (stream: boolean) => ({
  model: 'simulator/weather',
  stream,
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: REPR },
    { role: 'user', content: 'weather in Paris?' },
  ],
});

for (const stream of [false, true]) {
  t.test(`an object repr in the history: x-toolgate-warnings and a log line (${stream ? 'SSE' : 'JSON'})`, async (t) => {
    const before = gw.logs.length;
    const res = await post(corrupted(stream));
    await res.text();
    t.equal(res.status, 200, 'still served: the finding is advice');
    t.equal(res.headers.get('x-toolgate-warnings'), 'corrupted_content=1');
    t.equal(res.headers.get('x-toolgate-repairs'), null, 'nothing was repaired');
    const line = gw.logs.slice(before).map((text) => JSON.parse(text) as { level: number; msg: string; warnings?: string; reqId?: string }).find((entry) => entry.warnings !== undefined);
    t.ok(line, 'a log line names the warnings');
    t.equal(line?.level, 40, 'at warn level');
    t.equal(line?.warnings, 'corrupted_content=1');
    t.type(line?.reqId, 'string', 'tied to the request');
    if (!stream) t.equal(line?.reqId, res.headers.get('x-request-id'), 'the request id the client got');
  });
}

t.test('a clean history has no warnings header', async (t) => {
  const res = await post({ model: 'simulator/weather', messages: [{ role: 'user', content: 'weather in Paris?' }] });
  await res.text();
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-toolgate-warnings'), null);
});

t.test('advisory findings are counted by kind', async (t) => {
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /toolgate_repairs_total\{kind="corrupted_content"\} [2-9]/);
});

// The Responses path: its item-level findings can be advisory too (a function_call_output whose call
// belongs to a turn that opened with another user message is not restored into). They reach the
// client the same way, on the bridge and on a native /responses upstream.
const WEATHER = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

t.test('Responses: an advisory item finding is x-toolgate-warnings and a log line (bridge and native)', async (t) => {
  const openai = await startResponsesEmulator({ apiKey: 'sk-oa' });
  const both = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: openai.url, apiKey: 'sk-oa' } }), logLevel: 'info' });
  t.teardown(async () => {
    await both.close();
    await openai.close();
  });
  const create = (body: object): Promise<Response> =>
    fetch(`${both.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (const [path, model] of [['bridge', 'simulator/weather'], ['native', 'openai/gpt-x']] as const) {
    for (const stream of [false, true]) {
      const first = await create({ model, input: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER] });
      const call = ((await first.json()) as { output: Array<{ type: string; call_id: string }> }).output.find((item) => item.type === 'function_call');
      t.ok(call, `${path}: the first turn made a call`);
      const before = both.logs.length;
      const answer = { type: 'function_call_output', call_id: call?.call_id, output: '21C' };
      const res = await create({ model, stream, input: [{ role: 'user', content: 'Something else entirely' }, call, answer], tools: [WEATHER] });
      await res.text();
      t.equal(res.status, 200, `${path} ${stream ? 'SSE' : 'JSON'}: served`);
      t.equal(res.headers.get('x-toolgate-warnings'), 'history_restored=1', `${path} ${stream ? 'SSE' : 'JSON'}: the header names the finding`);
      const line = both.logs.slice(before).map((text) => JSON.parse(text) as { level: number; warnings?: string }).find((entry) => entry.warnings !== undefined);
      t.equal(line?.level, 40, `${path}: a warn line`);
      t.equal(line?.warnings, 'history_restored=1');
    }
  }
});
