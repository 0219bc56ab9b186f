import t from 'tap';
import type { ChatMessage, ChatRequest } from '../../../src/api/chat-types.js';
import { SKIP_SIGNATURE } from '../../../src/providers/gemini/messages.js';
import { buildRequest, modelPath } from '../../../src/providers/gemini/request.js';
import { validateRequest } from './emulator/validate.js';
import { weatherTool } from './helpers.js';

// OpenAI chat request → GenerateContentRequest: messages, tools, tool_choice, generation config.

const call = (id: string, name: string, args: object) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });

function build(request: Partial<ChatRequest>, model = 'gemini-2.5-flash', meta?: (id: string) => { thoughtSignature?: string; upstreamId?: string } | undefined) {
  return buildRequest({ model: 'gemini/x', messages: [], ...request } as ChatRequest, { model, meta }).body;
}

t.test('system, user, assistant and tool messages', async (t) => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Tokyo?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    { role: 'assistant', content: 'Checking.', tool_calls: [call('call_a', 'get_weather', { city: 'Paris' }), call('call_b', 'get_weather', { city: 'Tokyo' })] },
    // results out of order: they must come back in call order
    { role: 'tool', tool_call_id: 'call_b', content: '{"temp":25}' },
    { role: 'tool', tool_call_id: 'call_a', content: 'sunny, 18C' },
    { role: 'assistant', content: 'Paris 18C, Tokyo 25C.' },
    { role: 'user', content: 'Thanks' },
  ];
  const body = build({ messages, tools: [weatherTool] });
  t.same(body.systemInstruction, { parts: [{ text: 'Be brief.' }, { text: 'Use metric.' }] });
  t.same(body.contents, [
    { role: 'user', parts: [{ text: 'Weather in Paris and Tokyo?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
    { role: 'model', parts: [{ text: 'Checking.' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny, 18C' } } }, { functionResponse: { name: 'get_weather', response: { temp: 25 } } }] },
    { role: 'model', parts: [{ text: 'Paris 18C, Tokyo 25C.' }] },
    { role: 'user', parts: [{ text: 'Thanks' }] },
  ]);
  t.equal(validateRequest(body, 'gemini-2.5-flash'), null, 'the emulator (real API rules) accepts it');
});

t.test('the function response name comes from the tool_call_id, never a placeholder', async (t) => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'search_docs', { q: 'x' }), call('c2', 'fetch_page', { url: 'y' })] },
    { role: 'tool', tool_call_id: 'c2', name: 'wrong_name', content: '[1,2]' },
    { role: 'tool', tool_call_id: 'c1', content: '' },
  ];
  const body = build({ messages });
  t.same(body.contents[2].parts.map((p) => p.functionResponse), [
    { name: 'search_docs', response: { output: '' } },
    { name: 'fetch_page', response: { output: [1, 2] } },
  ]);
  t.throws(() => build({ messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'nope', content: 'r' }] }), { status: 400, code: 'invalid_tool_history' });
});

t.test('consecutive same-role turns merge; a results turn and following user text share a turn', async (t) => {
  const body = build({
    messages: [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'f', {})] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      { role: 'user', content: 'and now?' },
    ],
  });
  t.same(body.contents.map((c) => [c.role, c.parts.length]), [['user', 2], ['model', 1], ['user', 2]]);
  t.ok(body.contents[2].parts[0].functionResponse, 'function responses first');
  t.equal(validateRequest(body, 'gemini-2.5-flash'), null);
});

t.test('pairing holds even for histories that break it', async (t) => {
  const body = build({
    messages: [
      { role: 'assistant', content: null, tool_calls: [call('c1', 'f', {}), call('c2', 'g', {})] },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'user', content: 'next' },
    ],
  });
  t.equal(body.contents[0].role, 'user', 'a history opening with a call turn gets a user opener');
  t.same(body.contents[2].parts.map((p) => p.functionResponse?.name ?? p.text), ['f', 'g', 'next']);
  t.same(body.contents[2].parts[1].functionResponse?.response, { error: 'No result was provided for this call.' });
  t.equal(validateRequest(body, 'gemini-2.5-flash'), null);
});

t.test('thought signatures: known ones on their part, the skip value for unknown ones in the current turn', async (t) => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'old question' },
    { role: 'assistant', content: null, tool_calls: [call('old1', 'f', {})] },
    { role: 'tool', tool_call_id: 'old1', content: 'x' },
    { role: 'assistant', content: 'old answer' },
    { role: 'user', content: 'new question' },
    { role: 'assistant', content: null, tool_calls: [call('k1', 'f', {}), call('k2', 'f', {})] },
    { role: 'tool', tool_call_id: 'k1', content: 'x' },
    { role: 'tool', tool_call_id: 'k2', content: 'y' },
    { role: 'assistant', content: null, tool_calls: [{ ...call('u1', 'g', {}) }] },
    { role: 'tool', tool_call_id: 'u1', content: 'z' },
  ];
  const meta = (id: string) => (id === 'k1' ? { thoughtSignature: 'c2lnLWsx', upstreamId: 'g-1' } : undefined);
  const body = build({ messages }, 'gemini-3-flash-preview', meta);
  const parts = body.contents.flatMap((c) => c.parts);
  const byName = (n: number) => parts.filter((p) => p.functionCall)[n];
  t.notOk(byName(0).thoughtSignature, 'previous turns are not validated and get nothing');
  t.equal(byName(1).thoughtSignature, 'c2lnLWsx');
  t.equal(byName(1).functionCall?.id, 'g-1', "Gemini's own call id goes back");
  t.notOk(byName(2).thoughtSignature, 'only the first call of a step carries one');
  t.equal(byName(3).thoughtSignature, SKIP_SIGNATURE);
  t.equal(parts.find((p) => p.functionResponse?.id)?.functionResponse?.id, 'g-1');
  t.equal(validateRequest(body, 'gemini-3-flash-preview'), null);

  const older = build({ messages }, 'gemini-2.5-flash');
  t.notOk(older.contents.flatMap((c) => c.parts).some((p) => p.thoughtSignature), 'no skip value for models that do not validate');

  const google = build({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [{ ...call('x', 'f', {}), extra_content: { google: { thought_signature: 'Z29vZw==' } } }] }, { role: 'tool', tool_call_id: 'x', content: 'r' }] }, 'gemini-3-pro-preview');
  t.equal(google.contents[1].parts[0].thoughtSignature, 'Z29vZw==', "Google's OpenAI-compat extra_content is honoured");
});

t.test('tools and tool_choice', async (t) => {
  const tools = [weatherTool, { type: 'function' as const, function: { name: 'noop', parameters: { type: 'object', properties: {} } } }];
  const body = build({ messages: [{ role: 'user', content: 'hi' }], tools });
  t.same(body.tools?.[0].functionDeclarations.map((d) => [d.name, d.description, !!d.parameters]), [['get_weather', 'Current weather for a city', true], ['noop', '', false]]);
  t.same(body.tools?.[0].functionDeclarations[0].parameters, { type: 'OBJECT', properties: { city: { type: 'STRING' }, unit: { type: 'STRING', enum: ['c', 'f'], nullable: true } }, required: ['city'] });
  t.notOk(body.toolConfig);

  const mode = (tool_choice: ChatRequest['tool_choice']) => build({ messages: [{ role: 'user', content: 'hi' }], tools, tool_choice }).toolConfig;
  t.same(mode('auto'), { functionCallingConfig: { mode: 'AUTO' } });
  t.same(mode('none'), { functionCallingConfig: { mode: 'NONE' } });
  t.same(mode('required'), { functionCallingConfig: { mode: 'ANY' } });
  t.same(mode({ type: 'function', function: { name: 'noop' } }), { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['noop'] } });
  t.same(mode({ type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'noop' } }] } }), { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['noop'] } });
  const narrowed = build({ messages: [{ role: 'user', content: 'hi' }], tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'noop' } }] } } });
  t.same(narrowed.tools?.[0].functionDeclarations.map((d) => d.name), ['noop']);
  t.same(build({ messages: [{ role: 'user', content: 'hi' }], tool_choice: 'required' }).toolConfig, undefined, 'no tools, no toolConfig');
});

t.test('generation config', async (t) => {
  const body = build({
    messages: [{ role: 'user', content: 'hi' }],
    temperature: 0.2, top_p: 0.9, max_tokens: 100, max_completion_tokens: 200, stop: 'END', n: 2, seed: 7,
    presence_penalty: 0.1, frequency_penalty: 0.3,
    response_format: { type: 'json_schema', json_schema: { name: 'x', strict: true, schema: { $schema: 's', type: 'object', properties: { a: { const: 1 } }, additionalProperties: false } } },
    reasoning_effort: 'low',
  });
  t.same(body.generationConfig, {
    temperature: 0.2, topP: 0.9, maxOutputTokens: 200, candidateCount: 2, seed: 7, presencePenalty: 0.1, frequencyPenalty: 0.3,
    stopSequences: ['END'], responseMimeType: 'application/json',
    responseJsonSchema: { type: 'object', properties: { a: { enum: [1] } }, additionalProperties: false },
    thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
  });
  const g3 = build({ messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high', response_format: { type: 'json_object' } }, 'gemini-3-pro-preview');
  t.same(g3.generationConfig, { responseMimeType: 'application/json', thinkingConfig: { thinkingLevel: 'high', includeThoughts: true } }, 'a client that asked for reasoning gets thought summaries');
  t.same(build({ messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'none' }, 'gemini-3-pro-preview').generationConfig, { thinkingConfig: { thinkingLevel: 'minimal' } }, 'none asks for none');
  t.notOk(build({ messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' }, 'gemini-2.0-flash').generationConfig, 'no thinking config for models without thinking');
  t.equal(validateRequest(body, 'gemini-2.5-flash'), null);
});

t.test('model paths', async (t) => {
  t.equal(modelPath('gemini-2.5-flash', false), '/models/gemini-2.5-flash:generateContent');
  t.equal(modelPath('gemini-2.5-flash', true), '/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  t.equal(modelPath('tunedModels/my-model', false), '/tunedModels/my-model:generateContent');
});

// Issue 45: an OpenAI custom-tool call in the history (Gemini has no custom tools) goes as a call with its text input, never a crash.
t.test('a custom-tool call in the history', async (t) => {
  const custom = { id: 'c1', type: 'custom', custom: { name: 'run_python', input: 'print(1)' } } as never;
  const body = build({ tools: [weatherTool], messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [custom] }, { role: 'tool', tool_call_id: 'c1', content: '1' }] });
  t.same(body.contents[1].parts[0].functionCall, { name: 'run_python', args: { input: 'print(1)' } });
  t.equal(body.contents[2].parts[0].functionResponse?.name, 'run_python');
});
