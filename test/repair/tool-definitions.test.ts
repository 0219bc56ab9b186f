import t from 'tap';
import { isGatewayError } from '../../src/errors.js';
import { declaredToolsOf, MAX_TOOL_NAME_LENGTH, toolDefinitionsPass } from '../../src/repair/tool-definitions.js';
import { ctx, deepFreeze, kinds, req, user, strict } from './helpers.js';

const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

t.test('chat-shaped tools pass through as the same object', async (t) => {
  const request = deepFreeze(req([user('hi')], { tools: [WEATHER], tool_choice: 'auto' }));
  const out = toolDefinitionsPass.run(request, ctx());
  t.equal(out.request, request);
  t.same(out.findings, []);
});

t.test('AIFunction dict with a JSON-schema input_model', async (t) => {
  const schema = { title: 'Args', type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
  const request = deepFreeze(req([user('hi')], { tools: [{ type: 'ai_function', name: 'get_weather', description: 'Weather', input_model: schema }] }));
  const out = toolDefinitionsPass.run(request, ctx());
  t.same(out.request.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: schema } }]);
  t.same(kinds(out.findings), ['tool_definition_converted']);
});

t.test('AIFunction dict whose input_model is a class repr or a JSON string', async (t) => {
  const request = req([user('hi')], {
    tools: [
      { type: 'ai_function', name: 'a', description: 'A', input_model: "<class 'agent.WeatherArgs'>" },
      { type: 'ai_function', name: 'b', input_model: JSON.stringify({ type: 'object', properties: { q: { type: 'string' } } }) },
    ],
  });
  const out = toolDefinitionsPass.run(request, ctx());
  t.same(out.request.tools![0], { type: 'function', function: { name: 'a', description: 'A', parameters: { type: 'object', properties: {} } } });
  t.same(strict(out.request).tools![1].function.parameters, { type: 'object', properties: { q: { type: 'string' } } });
  t.match(out.findings[0].detail, /not a JSON schema/);
});

t.test('bare, flat Responses-style and Anthropic-style tools get the function wrapper', async (t) => {
  const params = { type: 'object', properties: {} };
  const request = req([user('hi')], {
    tools: [
      { name: 'bare', description: 'd', parameters: params },
      { type: 'function', name: 'flat', parameters: params, strict: true },
      { name: 'anthropic', input_schema: params },
    ],
  });
  const out = toolDefinitionsPass.run(request, ctx());
  t.same(out.request.tools, [
    { type: 'function', function: { name: 'bare', description: 'd', parameters: params } },
    { type: 'function', function: { name: 'flat', parameters: params, strict: true } },
    { type: 'function', function: { name: 'anthropic', parameters: params } },
  ]);
});

t.test('legacy functions + function_call → tools + tool_choice', async (t) => {
  const request = deepFreeze(req([user('hi')], { functions: [{ name: 'f', parameters: { type: 'object' } }], function_call: { name: 'f' } }));
  const out = toolDefinitionsPass.run(request, ctx());
  t.same(out.request.tools, [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]);
  t.same(out.request.tool_choice, { type: 'function', function: { name: 'f' } });
  t.notOk('functions' in out.request);
  t.notOk('function_call' in out.request);
  t.ok(kinds(out.findings).includes('tool_choice_converted'));
});

t.test('function_call "none"/"auto" and a flat tool_choice', async (t) => {
  const a = toolDefinitionsPass.run(req([user('x')], { functions: [{ name: 'f' }], function_call: 'none' }), ctx());
  t.equal(a.request.tool_choice, 'none');
  const b = toolDefinitionsPass.run(req([user('x')], { tools: [WEATHER], tool_choice: { type: 'function', name: 'get_weather' } }), ctx());
  t.same(b.request.tool_choice, { type: 'function', function: { name: 'get_weather' } });
});

t.test('empty tools array is removed with its tool_choice', async (t) => {
  const out = toolDefinitionsPass.run(req([user('x')], { tools: [], tool_choice: 'auto' }), ctx());
  t.notOk('tools' in out.request);
  t.notOk('tool_choice' in out.request);
  t.same(kinds(out.findings), ['empty_tools_removed']);
});

t.test('non-function tools pass through untouched', async (t) => {
  const request = req([user('x')], { tools: [WEATHER, { type: 'custom', custom: { name: 'grammar' } }] });
  t.equal(toolDefinitionsPass.run(request, ctx()).request, request);
  t.same([...declaredToolsOf(request).keys()], ['get_weather']);
});

t.test('duplicate names are the catalogue 400', async (t) => {
  const request = req([user('x')], { tools: [WEATHER, { name: 'get_weather', parameters: {} }] });
  const error = (() => {
    try {
      toolDefinitionsPass.run(request, ctx());
    } catch (e) {
      return e;
    }
  })();
  t.ok(isGatewayError(error));
  t.match(error, { status: 400, code: 'duplicate_tool_name', param: 'tools[1]' });
  t.throws(() => declaredToolsOf(request), { code: 'duplicate_tool_name' });
});

t.test('a tool without a name is a 400 naming the param', async (t) => {
  t.throws(() => toolDefinitionsPass.run(req([user('x')], { tools: [{ description: 'x' }] }), ctx()), {
    name: 'GatewayError',
    status: 400,
    param: 'tools[0].function.name',
  });
  t.throws(() => toolDefinitionsPass.run(req([user('x')], { tools: ['nope'] }), ctx()), { name: 'GatewayError', status: 400, param: 'tools[0]' });
});

t.test('declaredToolsOf maps names to normalized definitions', async (t) => {
  const tools = declaredToolsOf(req([user('x')], { tools: [{ type: 'ai_function', name: 'a', input_model: { type: 'object' } }], functions: [{ name: 'b' }] }));
  t.same([...tools.keys()], ['a', 'b']);
  t.same(tools.get('a'), { type: 'function', function: { name: 'a', parameters: { type: 'object' } } });
  t.equal(declaredToolsOf(req([user('x')])).size, 0);
});

// Issue 14 §4: `parameters: "oops"` went upstream, drew a 400 there, and put the model in prompt
// mode for everyone. A request's own invalid tools are a 400 here, naming the field.
t.test('declared tools that no repair can fix are a 400 before anything goes upstream', async (t) => {
  const refused = (tools: unknown[], code: string, param: string) => {
    const request = req([user('hi')], { tools } as never);
    t.throws(() => toolDefinitionsPass.run(request, ctx()), { status: 400, code, param }, `${code} at ${param}`);
    t.throws(() => declaredToolsOf(request), { status: 400, code });
  };
  refused([{ type: 'function', function: { name: 'f', parameters: 'oops' } }], 'invalid_tool_parameters', 'tools[0].function.parameters');
  refused([WEATHER, { type: 'function', function: { name: 'g', parameters: [] } }], 'invalid_tool_parameters', 'tools[1].function.parameters');
  refused([{ name: 'bare', parameters: 42 }], 'invalid_tool_parameters', 'tools[0].parameters');
  refused([{ name: 'anthropic', input_schema: 'x' }], 'invalid_tool_parameters', 'tools[0].parameters');
  const long = 'n'.repeat(MAX_TOOL_NAME_LENGTH + 1);
  refused([{ type: 'function', function: { name: long, parameters: { type: 'object' } } }], 'tool_name_too_long', 'tools[0].function.name');
  refused([{ name: long }], 'tool_name_too_long', 'tools[0].name');
  const error = (() => {
    try {
      declaredToolsOf(req([user('hi')], { tools: [{ type: 'function', function: { name: long } }] } as never));
    } catch (caught) {
      return caught;
    }
    return null;
  })();
  t.ok(isGatewayError(error) && error.message.includes(String(MAX_TOOL_NAME_LENGTH)), 'the message names the limit');
});

t.test('names up to the limit, any characters, and absent or null parameters are fine', async (t) => {
  const name = `mcp/server:${'x'.repeat(MAX_TOOL_NAME_LENGTH - 11)}`;
  const tools = [
    { type: 'function', function: { name } },
    { type: 'function', function: { name: 'my.tool', parameters: null } },
  ];
  t.same([...declaredToolsOf(req([user('hi')], { tools } as never)).keys()], [name, 'my.tool']);
});

// The repair step reads the declared tools (declaredToolsOf) and then runs this pass on the same
// request: the tools are normalized once for both, not once for each.
t.test('one normalization per request object, shared by the pass and declaredToolsOf', async (t) => {
  let reads = 0;
  const fn = { name: 'get_weather', parameters: { type: 'object', properties: {} } };
  const counted = {
    type: 'function',
    get function() {
      reads++;
      return fn;
    },
  };
  const request = req([user('x')], { tools: [counted, { name: 'bare_tool' }] });
  const declared = declaredToolsOf(request);
  const once = reads;
  t.ok(once > 0);
  const out = toolDefinitionsPass.run(request, ctx());
  t.equal(reads, once, 'the pass read no tool again');
  t.same([...declared.keys()], ['get_weather', 'bare_tool']);
  t.equal(out.findings.length, 1, 'the bare tool is still reported');
  out.findings.push(out.findings[0]);
  t.equal(toolDefinitionsPass.run(request, ctx()).findings.length, 1, 'each run gets its own findings array');
  t.not(toolDefinitionsPass.run(req([user('x')], { tools: [counted] }), ctx()).request, undefined);
  t.ok(reads > once, 'another request object is normalized on its own');
});
