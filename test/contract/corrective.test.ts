import t from 'tap';
import { NOT_RUN, reaskRequest, termsOf } from '../../src/contract/index.js';

// The re-ask request: the original, the model's answer as a message an upstream accepts, the corrective message.

const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const original = { model: 'm', messages: [{ role: 'user' as const, content: 'Weather?' }], tools, tool_choice: 'required' };
const terms = termsOf(original)!;
const violation = { kind: 'tool_required' as const, param: 'tool_choice' as const, message: 'tool_choice requires a call to a tool, but the answer called no tool' };

t.test('an answer with neither text nor calls is left out (strict upstreams refuse {"role":"assistant","content":null})', async (t) => {
  for (const content of [null, '']) {
    const request = reaskRequest(original, { role: 'assistant', content }, [violation], terms);
    t.same(request.messages.map((m) => m.role), ['user', 'user'], JSON.stringify(content));
  }
});

t.test('text is kept; calls are kept and answered as not run', async (t) => {
  const text = reaskRequest(original, { role: 'assistant', content: 'Sunny.' }, [violation], terms);
  t.same(text.messages[1], { role: 'assistant', content: 'Sunny.' });
  const call = { id: 'call_1', type: 'function' as const, function: { name: 'get_time', arguments: '{}' } };
  const calls = reaskRequest(original, { role: 'assistant', content: null, tool_calls: [call] }, [violation], terms);
  t.same(calls.messages.slice(1, 3), [{ role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: NOT_RUN }]);
});
