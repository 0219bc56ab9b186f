import t from 'tap';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import { termsOf, unsatisfiable } from '../../src/contract/index.js';
import { createLogger } from '../../src/logging.js';

// A tool_choice that no answer could keep is the client's mistake: a 400 before any upstream call,
// never a re-ask that ends in a 502 blaming the upstream.

const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } }];
const reason = (request: Parameters<typeof termsOf>[0]): string | undefined => {
  const terms = termsOf(request);
  return terms && unsatisfiable(terms);
};

t.test('which terms no answer could keep', async (t) => {
  t.match(reason({ tool_choice: 'required' }), /required/, 'required without tools');
  t.match(reason({ tool_choice: { type: 'function', function: { name: 'nope' } } }), /'nope'/, 'a named function and no tools');
  t.match(reason({ tools, tool_choice: { type: 'function', function: { name: 'nope' } } }), /'nope'/, 'a named function not declared');
  t.match(reason({ tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', name: 'nope' }] } } }), /'nope'/);
  t.equal(reason({ tools, tool_choice: 'required' }), undefined);
  t.equal(reason({ tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }), undefined);
  t.equal(reason({ tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', name: 'nope' }] } } }), undefined, 'allowed, not required');
  t.equal(reason({ tool_choice: 'none' }), undefined);
  t.equal(reason({ tool_choice: 'auto' }), undefined);
});

t.test('the chat route answers them 400 naming tool_choice, JSON and stream, with no upstream call', async (t) => {
  const loaded = parseConfig('providers:\n  simulator: {type: simulator}\n', {}, 'terms');
  const { app } = await buildApp(loaded, { logger: createLogger({ level: 'silent', secrets: [] }) });
  t.teardown(() => app.close());
  const bodies = [
    { model: 'simulator/weather', messages: [{ role: 'system' }, { role: 'user', content: 'hi' }], tool_choice: { type: 'function', function: { name: 'nope' } } },
    { model: 'simulator/weather', messages: [{ role: 'user', content: 'hi' }], tool_choice: 'required' },
    { model: 'simulator/weather', messages: [{ role: 'user', content: 'hi' }], tools, tool_choice: { type: 'function', function: { name: 'get_time' } }, stream: true },
  ];
  for (const body of bodies) {
    const res = await app.inject({ method: 'POST', url: '/v1/chat/completions', payload: body });
    t.equal(res.statusCode, 400, JSON.stringify(body.tool_choice));
    const error = (res.json() as { error: { type: string; param: string; code: string } }).error;
    t.same([error.type, error.param, error.code], ['invalid_request_error', 'tool_choice', 'invalid_value']);
  }
  const metrics = await app.inject({ method: 'GET', url: '/metrics' });
  t.notMatch(metrics.body, /toolgate_llm_calls_total\{[^}]*\} [1-9]/, 'no upstream call was made');
});
