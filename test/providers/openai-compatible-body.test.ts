import t from 'tap';
import type { ChatRequest } from '../../src/api/chat-types.js';
import { withModelAndStream } from '../../src/providers/openai-compatible.js';

// The JSON path's upstream body is built key by key instead of `{ ...request, model, stream: false }`
// (a key added to a spread copy is slow on Node 20): the upstream must get the very same JSON text.

const BODIES: Record<string, string> = {
  'no stream key (stream appended last)': '{"model":"alias","messages":[{"role":"user","content":"hi"}],"temperature":0.2,"tools":[]}',
  'stream: true (replaced in place)': '{"stream":true,"model":"alias","messages":[],"stream_options":{"include_usage":true}}',
  'model last, stream first': '{"stream":false,"messages":[],"n":1,"model":"alias"}',
  'integer-like keys (ordered first either way)': '{"model":"m","2":"b","10":"c","1":"a","messages":[]}',
  'unusual keys': '{"constructor":{"x":1},"toString":"s","hasOwnProperty":null,"model":"m","messages":[]}',
  'an own __proto__ key (parsed from JSON)': '{"model":"m","__proto__":{"polluted":true},"messages":[]}',
};

t.test('the upstream body is the same JSON text as the spread gives, key order included', async (t) => {
  for (const [name, text] of Object.entries(BODIES)) {
    const request = JSON.parse(text) as ChatRequest;
    for (const stream of [false, true]) {
      const body = withModelAndStream(request, 'upstream-model', stream);
      t.equal(JSON.stringify(body), JSON.stringify({ ...request, model: 'upstream-model', stream }), `${name}, stream ${stream}`);
      t.equal(Object.getPrototypeOf(body), Object.prototype, `${name}: a plain object`);
      t.equal(({} as { polluted?: unknown }).polluted, undefined, 'no prototype was touched');
    }
  }
});

t.test('the request itself is not changed', async (t) => {
  const request = JSON.parse(BODIES['no stream key (stream appended last)']) as ChatRequest;
  const before = JSON.stringify(request);
  withModelAndStream(request, 'upstream-model', false);
  t.equal(JSON.stringify(request), before);
});
