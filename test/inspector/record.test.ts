import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';

// What a request record warns about, through real requests: a tool schema the gateway cannot fully
// check (a pattern RE2 cannot run in linear time) is named in the record's warnings, JSON and SSE,
// once per distinct note; a schema it checks whole adds no warning.

const LOOKAHEAD = '^(?=.*[A-Z]).+$';
const toolsWith = (pattern?: string) => [
  {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string', ...(pattern ? { pattern } : {}) } }, required: ['city'] } },
  },
];

t.test('arguments a schema could not fully check are a warning in the request record', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'inspector:\n  enabled: true\n'), logLevel: 'warn' });
  t.teardown(() => gw.close());
  const send = async (stream: boolean, pattern?: string): Promise<string[]> => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'simulator/weather', stream, tools: toolsWith(pattern), messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }] }),
    });
    await response.text();
    t.equal(response.status, 200);
    const id = response.headers.get('x-request-id') ?? '';
    const record = (await (await fetch(`${gw.url}/v1/toolgate/requests/${id}`)).json()) as { warnings: string[]; normalizer?: { toolCalls: number } };
    t.ok((record.normalizer?.toolCalls ?? 0) >= 2, 'the answer called the tool twice');
    return record.warnings;
  };
  for (const stream of [false, true]) {
    const warnings = await send(stream, LOOKAHEAD);
    const unchecked = warnings.filter((warning) => warning.includes('not fully checked'));
    t.equal(unchecked.length, 1, `${stream ? 'SSE' : 'JSON'}: one warning`);
    t.match(unchecked[0], /pattern "\^\(\?=\.\*\[A-Z\]\)\.\+\$" is not checked/, 'it names the pattern');
    t.equal(unchecked[0].split('is not checked').length - 1, 1, 'the same note once, however many calls');
    const plain = await send(stream);
    t.notOk(plain.some((warning) => warning.includes('not fully checked')), `${stream ? 'SSE' : 'JSON'}: a checkable schema adds none`);
  }
});
