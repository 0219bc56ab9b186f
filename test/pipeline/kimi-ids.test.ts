import t from 'tap';
import { nameCounterToolCallIds } from '../../src/pipeline/tool-names.js';
import type { ChatRequest } from '../../src/api/chat-types.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';

// Kimi K2 reads the history's call ids as `functions.<name>:<n>` (n counts the conversation's calls
// from 0) and writes its own that way in every conversation. toolgate gives the client unique ids
// (a counter id says nothing across conversations) and writes Kimi's form again on the way up, from
// the history alone; other models get the client's ids as sent.

const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
const history = [
  { role: 'user' as const, content: 'weather and time?' },
  { role: 'assistant' as const, content: null, tool_calls: [call('call_aaa', 'get_weather'), call('call_bbb', 'get_time')] },
  { role: 'tool' as const, tool_call_id: 'call_bbb', content: '12:00' },
  { role: 'tool' as const, tool_call_id: 'call_aaa', content: '3C' },
  { role: 'assistant' as const, content: null, tool_calls: [call('call_ccc', 'get_weather')] },
  { role: 'tool' as const, tool_call_id: 'call_ccc', content: '4C' },
  { role: 'tool' as const, tool_call_id: 'call_zzz', content: 'an orphan keeps its id' },
];

t.test('the name-counter form, numbered over the conversation, each result following its call', async (t) => {
  const out = nameCounterToolCallIds({ model: 'm', messages: history } as unknown as ChatRequest);
  const ids = out.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : m.role === 'tool' ? [m.tool_call_id] : []));
  t.same(ids, ['functions.get_weather:0', 'functions.get_time:1', 'functions.get_time:1', 'functions.get_weather:0', 'functions.get_weather:2', 'functions.get_weather:2', 'call_zzz']);
  const none = { model: 'm', messages: [{ role: 'user', content: 'hi' }] } as unknown as ChatRequest;
  t.equal(nameCounterToolCallIds(none), none, 'a request without calls is the same object');
});

t.test('through the gateway: Kimi K2 upstreams get the form, clients get unique ids, other models get theirs', async (t) => {
  const seen: string[] = [];
  const upstream = await startRawUpstream((_req, res, body) => {
    seen.push(body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'functions.get_time:3', type: 'function', function: { name: 'get_time', arguments: '{}' } }] } }] }));
  });
  const gateway = await startGateway({ yaml: configFor({ compat: { baseUrl: upstream.baseURL, apiKey: 'sk-up' } }), logLevel: 'silent' });
  t.teardown(async () => {
    await gateway.close();
    await upstream.close();
  });
  const tools = ['get_weather', 'get_time'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }));
  const ask = async (model: string): Promise<{ sent: { messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }> }; answered: string }> => {
    const res = await fetch(`${gateway.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, tools, messages: history.slice(0, 6) }) });
    t.equal(res.status, 200);
    const body = (await res.json()) as { choices: Array<{ message: { tool_calls: Array<{ id: string }> } }> };
    return { sent: JSON.parse(seen.at(-1) ?? '{}') as never, answered: body.choices[0].message.tool_calls[0].id };
  };
  const kimi = await ask('compat/moonshotai/Kimi-K2-Instruct-0905');
  t.same(kimi.sent.messages[1].tool_calls?.map((c) => c.id), ['functions.get_weather:0', 'functions.get_time:1']);
  t.same(kimi.sent.messages.slice(2).map((m) => m.tool_call_id ?? m.tool_calls?.[0].id), ['functions.get_time:1', 'functions.get_weather:0', 'functions.get_weather:2', 'functions.get_weather:2']);
  t.match(kimi.answered, /^call_[A-Za-z0-9]{24}$/, "the model's counter id reaches the client as a unique one");
  const other = await ask('compat/Qwen/Qwen3-235B-A22B-Instruct-2507');
  t.same(other.sent.messages[1].tool_calls?.map((c) => c.id), ['call_aaa', 'call_bbb'], "another model gets the client's ids");
});
