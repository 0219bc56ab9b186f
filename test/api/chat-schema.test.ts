import t from 'tap';
import { parseChatRequest } from '../../src/api/chat-schema.js';

const USER = { role: 'user', content: 'hi' };

function refusal(body: unknown): { status?: number; code?: string; param?: string | null; message: string } {
  try {
    parseChatRequest(body);
  } catch (error) {
    return error as { status: number; code: string; param: string | null; message: string };
  }
  throw new Error('expected a 400');
}

t.test('an unknown role is named in the error, whatever its type', async (t) => {
  for (const [role, shown] of [['model', 'model'], ['', ''], [5, '5'], [null, 'null'], [{ a: 1 }, '{"a":1}'], [['user'], '["user"]']] as const) {
    const error = refusal({ model: 'm', messages: [USER, { role, content: 'x' }] });
    t.equal(error.status, 400);
    t.equal(error.code, 'invalid_value');
    t.equal(error.param, 'messages[1].role');
    t.equal(error.message, `Invalid value: '${shown}'. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool', and 'function'.`);
  }
  t.equal(refusal({ model: 'm', messages: [{ role: 'x'.repeat(10_000) }] }).message.length < 300, true, 'a huge value is clipped');
});

t.test('a message without role: missing_required_parameter', async (t) => {
  const error = refusal({ model: 'm', messages: [USER, { content: 'x' }] });
  t.same({ code: error.code, param: error.param, message: error.message }, { code: 'missing_required_parameter', param: 'messages[1].role', message: "Missing required parameter: 'messages[1].role'." });
});

t.test('type errors name the field and both types; absent required fields are missing', async (t) => {
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [{ messages: [USER] }, 'model', "Missing required parameter: 'model'."],
    [{ model: 3, messages: [USER] }, 'model', "Invalid 'model': Invalid input: expected string, received number."],
    [{ model: '', messages: [USER] }, 'model', "Invalid 'model': Too small: expected string to have >=1 characters."],
    [{ model: 'm' }, 'messages', "Missing required parameter: 'messages'."],
    [{ model: 'm', messages: {} }, 'messages', "Invalid 'messages': Invalid input: expected array, received object."],
    [{ model: 'm', messages: [] }, 'messages', "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead."],
    [{ model: 'm', messages: [USER, 'hi'] }, 'messages[1]', "Invalid 'messages[1]': Invalid input: expected object, received string."],
    [{ model: 'm', messages: [USER], stream: 'yes' }, 'stream', "Invalid 'stream': Invalid input: expected boolean, received string."],
    [{ model: 'm', messages: [USER], stream_options: [] }, 'stream_options', "Invalid 'stream_options': Invalid input: expected object, received array."],
    [{ model: 'm', messages: [USER], stream_options: { include_usage: 1 } }, 'stream_options.include_usage', "Invalid 'stream_options.include_usage': Invalid input: expected boolean, received number."],
    [{ model: 'm', messages: [USER], tools: { a: 1 } }, 'tools', "Invalid 'tools': Invalid input: expected array, received object."],
    [{ model: 'm', messages: [USER], functions: [{}, null] }, 'functions[1]', "Invalid 'functions[1]': Invalid input: expected object, received null."],
    [{ model: 'm', messages: [USER], n: 1.5 }, 'n', "Invalid 'n': Invalid input: expected int, received number."],
    [{ model: 'm', messages: [USER], n: 0 }, 'n', "Invalid 'n': Too small: expected number to be >=1."],
    [{ model: 'm', messages: [USER], n: 129 }, 'n', "Invalid 'n': Too big: expected number to be <=128."],
    [{ model: 'm', messages: [USER], temperature: '0.2' }, 'temperature', "Invalid 'temperature': Invalid input: expected number, received string."],
    [{ model: 'm', messages: [USER, { role: 'user', content: 'x', name: 5 }] }, 'messages[1].name', "Invalid 'messages[1].name': Invalid input: expected string, received number."],
    [{ model: 'm', messages: [USER], tool_choice: 5 }, 'tool_choice', "Invalid 'tool_choice': Invalid input: expected string or object, received number."],
    [{ model: 'm', messages: [USER], tool_choice: ['auto'] }, 'tool_choice', "Invalid 'tool_choice': Invalid input: expected string or object, received array."],
    [{ model: 'm', messages: [USER], max_tokens: 2 ** 60 }, 'max_tokens', "Invalid 'max_tokens': Too big: expected int to be <=9007199254740991."],
  ];
  for (const [body, param, message] of cases) {
    const error = refusal(body);
    t.equal(error.param, param, JSON.stringify(body));
    t.equal(error.message, message);
    t.equal(error.code, message.startsWith('Missing') ? 'missing_required_parameter' : 'invalid_value');
  }
  t.equal(refusal([USER]).code, 'invalid_body');
  t.equal(refusal(null).code, 'invalid_body');
});

t.test('the first problem in field order is the one reported', async (t) => {
  t.equal(refusal({ model: 3, messages: [{ role: 'bad' }], stream: 'x' }).param, 'model');
  t.equal(refusal({ model: 'm', messages: [{ role: 'user' }, { role: 'bad' }, 'x'], stream: 'x' }).param, 'messages[1].role');
  t.equal(refusal({ model: 'm', messages: [USER], n: 0, tools: 'x' }).param, 'tools');
});

t.test('a valid body comes back as itself, nulls dropped (they mean absent), unknown keys kept', async (t) => {
  const body = { model: 'm', messages: [USER], stream: null, stream_options: null, tools: null, functions: null, n: null, tool_choice: null, seed: 7, extra: { a: 1 } };
  const request = parseChatRequest(body);
  t.equal(request, body, 'no copy of the history');
  t.same(Object.keys(request), ['model', 'messages', 'seed', 'extra']);
  const message = { role: 'assistant', content: null, refusal: null, audio: null, function_call: null, annotations: [], tool_calls: null };
  parseChatRequest({ model: 'm', messages: [message] });
  t.same(message, { role: 'assistant', content: null }, 'in messages too, but content: null says something and stays');
});
