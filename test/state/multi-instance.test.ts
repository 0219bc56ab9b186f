import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { post, startReliableGateway, type ReliableGateway } from '../helpers/reliable-gateway.js';
import { startRedis } from '../helpers/redis-server.js';

// Two toolgate instances (two apps in one process, each with its own Redis client) on one real
// redis-server: the call ledger, the Responses store and the rate limits are shared; a Redis
// outage degrades (fewer repairs, limits per limitsFailMode), it never takes serving down.

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const KEY = { authorization: 'Bearer tg-shared-key-0001' };

/** Fixed one-minute windows: keep a burst of requests inside one. */
async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
}

t.test('two instances on one Redis', async (t) => {
  const redis = await startRedis();
  const emulator = await startOpenAIEmulator({ apiKey: 'sk-emu-1234' });
  const yaml = (failMode: string) => `providers:
  simulator: {type: simulator}
  openai: {type: openai-compatible, baseUrl: ${emulator.url}, apiKey: sk-emu-1234}
state: {type: redis, url: "${redis.url}", keyPrefix: "tg-test:", commandTimeoutMs: 1000, limitsFailMode: ${failMode}}
auth:
  keys:
    - {key: tg-shared-key-0001, name: shared}
    - {key: tg-limited-key-02, name: limited, requestsPerMinute: 3}
`;
  const a = await startReliableGateway(yaml('open'));
  const b = await startReliableGateway(yaml('open'));
  t.teardown(async () => {
    await a.close();
    await b.close();
    await emulator.close();
    await redis.close();
  });
  const chat = (gw: ReliableGateway, body: unknown, headers = KEY) => post(gw.url, '/v1/chat/completions', body, headers);

  t.test('a call emitted by A is restored by B (stripped history)', async (t) => {
    const user = { role: 'user', content: 'What is the weather in Paris?' };
    const first = await chat(a, { model: 'openai/gpt-4o-mini', messages: [user], tools: TOOLS });
    t.equal(first.status, 200);
    const call = first.json.choices[0].message.tool_calls[0];
    t.match(call.id, /^call_/);
    // The client lost the calls: assistant content "" without tool_calls, tool message without id.
    const stripped = [user, { role: 'assistant', content: '' }, { role: 'tool', content: '{"temp_c": 21}' }];
    const second = await chat(b, { model: 'openai/gpt-4o-mini', messages: stripped, tools: TOOLS });
    t.equal(second.status, 200, second.text);
    t.match(second.headers.get('x-toolgate-repairs') ?? '', /restored|tool_call/, 'B reports the repair');
    const seen = emulator.requests.at(-1)!.body;
    t.same(seen.messages[1].tool_calls, [call], 'the upstream got the original call back');
    t.equal(seen.messages[2].tool_call_id, call.id, 'and the original id on the tool result');
    t.match(second.json.choices[0].message.content, /temp_c/);
  });

  t.test('a previous_response_id from A works on B', async (t) => {
    const first = await post(a.url, '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'Remember the word: tangerine.' }, KEY);
    t.equal(first.status, 200, first.text);
    t.match(first.json.id, /^resp_/);
    const next = await post(b.url, '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'What was the word?', previous_response_id: first.json.id }, KEY);
    t.equal(next.status, 200, next.text);
    const sent = JSON.stringify(emulator.requests.at(-1)!.body.messages);
    t.match(sent, /tangerine/, "B sent A's conversation upstream");
    const fetched = await fetch(`${b.url}/v1/responses/${first.json.id}`, { headers: KEY });
    t.equal(fetched.status, 200, 'GET on the other instance');
    const deleted = await fetch(`${a.url}/v1/responses/${next.json.id}`, { method: 'DELETE', headers: KEY });
    t.equal(deleted.status, 200);
    t.equal((await fetch(`${b.url}/v1/responses/${next.json.id}`, { headers: KEY })).status, 404, 'deleted everywhere');
  });

  t.test('limits are global: requestsPerMinute 3 across both instances', async (t) => {
    await awayFromMinuteEdge();
    const limited = { authorization: 'Bearer tg-limited-key-02' };
    const body = { model: 'simulator/weather', messages: [{ role: 'user', content: 'hi' }] };
    const statuses = [];
    for (const gw of [a, b, a, b]) statuses.push((await chat(gw, body, limited)).status);
    t.same(statuses, [200, 200, 200, 429]);
  });

  t.test('Redis down: both instances keep serving; repairs need the ledger, limits fail open', async (t) => {
    await redis.stop();
    const user = { role: 'user', content: 'What is the weather in Oslo?' };
    const started = Date.now();
    const first = await chat(a, { model: 'openai/gpt-4o-mini', messages: [user], tools: TOOLS });
    t.equal(first.status, 200, 'served without Redis');
    const limited = await chat(b, { model: 'simulator/weather', messages: [user] }, { authorization: 'Bearer tg-limited-key-02' });
    t.equal(limited.status, 200, 'limits fail open (the window was used up, but nobody can tell)');
    const stripped = [user, { role: 'assistant', content: '' }, { role: 'tool', content: '{"temp_c": 3}' }];
    const second = await chat(b, { model: 'openai/gpt-4o-mini', messages: stripped, tools: TOOLS });
    t.ok(second.status < 500, `no 5xx for the stripped history without a ledger (${second.status})`);
    const responses = await post(a.url, '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'hello' }, KEY);
    t.equal(responses.status, 200, 'a Responses call without previous_response_id still works');
    const continued = await post(b.url, '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'and?', previous_response_id: responses.json.id }, KEY);
    t.equal(continued.status, 503, 'a previous_response_id cannot be read: a clear 503');
    t.equal(continued.json?.error?.code, 'response_store_unavailable');
    t.ok(Date.now() - started < 5000, 'no hangs');
    t.match([...a.logs, ...b.logs].join('\n'), /call ledger (lookup|write) failed|redis: connection problem/, 'the outage is logged');

    const closed = await startReliableGateway(yaml('closed'));
    const refused = await chat(closed, { model: 'simulator/weather', messages: [user] }, { authorization: 'Bearer tg-limited-key-02' });
    await closed.close();
    t.equal(refused.status, 503, 'limitsFailMode: closed refuses keys with limits');
    t.equal(refused.json.error.code, 'state_unavailable');

    await redis.restart();
    // The clients retry with a growing delay (up to 2 s): a response that A stores and B reads back
    // proves both reconnected. Asked until it works, within a deadline, not after a fixed sleep.
    const deadline = Date.now() + 15_000;
    let shared = 0;
    while (shared !== 200 && Date.now() < deadline) {
      const stored = await post(a.url, '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'back?' }, KEY);
      if (stored.status === 200) shared = (await fetch(`${b.url}/v1/responses/${stored.json.id}`, { headers: KEY })).status;
      if (shared !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(shared, 200, 'reconnected: a response stored by A is read by B');
  });
});
