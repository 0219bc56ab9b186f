import t, { type Test } from 'tap';
import { withRefusalText } from '../../src/api/refusal-text.js';

// `"refusal":null` put into an upstream's answer text (src/api/refusal-text.ts). Whenever a text comes
// back it must be, as a JSON value, the parsed answer with `refusal: null` added to each choice's message
// that lacked it, every other key in the upstream's order, the added field first in its message.

type Message = Record<string, unknown>;
interface Answer {
  choices: { message: Message }[];
}

function lacksOf(text: string): boolean[] {
  return (JSON.parse(text) as Answer).choices.map((choice) => choice.message.refusal === undefined);
}

/** Checks a returned text against the parsed answer; true when a text came back. */
function check(t: Test, text: string, title: string): boolean {
  const lacks = lacksOf(text);
  const out = withRefusalText(text, lacks);
  if (out === undefined) return false;
  const got = JSON.parse(out) as Answer;
  const want = JSON.parse(text) as Answer;
  t.equal(got.choices.length, want.choices.length, `${title}: choices`);
  got.choices.forEach((choice, i) => {
    if (lacks[i]) {
      t.equal(choice.message.refusal, null, `${title}: choice ${i} has refusal null`);
      t.equal(Object.keys(choice.message)[0], 'refusal', `${title}: first in its message`);
      delete choice.message.refusal;
    }
  });
  // Everything else: the same value, keys in the same order.
  t.equal(JSON.stringify(got), JSON.stringify(want), `${title}: the rest unchanged`);
  return true;
}

const head = '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[';
const tail = '],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
const answer = (...choices: string[]): string => head + choices.join(',') + tail;
const choice = (message: string, extra = ''): string => `{"index":0,"message":${message}${extra},"finish_reason":"stop"}`;

t.test('put in where provably exact', async (t) => {
  const cases: Record<string, string> = {
    'one choice': answer(choice('{"role":"assistant","content":"hi"}')),
    'empty message': answer(choice('{}')),
    'two choices, both lacking': answer(choice('{"role":"assistant","content":"a"}'), choice('{"role":"assistant","content":"b"}')),
    'two choices, the second lacking': answer(choice('{"role":"assistant","content":"a","refusal":null}'), choice('{"content":"b"}')),
    'two choices, the first lacking': answer(choice('{"content":"a"}'), choice('{"refusal":"no"}')),
    '"message":{ inside a string': answer(choice('{"content":"say \\"message\\":{ \\"message\\":{} now"}')),
    'a key a"message (escaped quote before)': answer(choice('{"content":"x"}', ',"x":{"a\\"message":{"b":1}}')),
    'a value "message"': answer(choice('{"content":"x","tool_calls":[]}', ',"type":"message","k":["message"],"o":{"v":"message"}')),
    'non-ASCII escapes': answer(choice('{"content":"h\\u00e9llo \\u4e2d \\u001f"}')),
    'escaped backslash before a string': answer(choice('{"content":"a\\\\"}', ',"p":"\\\\"')),
    'a key ending in message': answer(choice('{"content":"x"}', ',"x_message":{"a":1},"message_x":{"b":2}')),
    'tool calls': answer(choice('{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"message\\":{\\"a\\":1}}"}}]}')),
  };
  for (const [title, text] of Object.entries(cases)) t.ok(check(t, text, title), `${title}: put in`);
});

t.test('declined (the caller serializes) where not provably exact', async (t) => {
  const cases: Record<string, string> = {
    pretty: JSON.stringify(JSON.parse(answer(choice('{"content":"x"}'))), null, 2),
    'space before the brace': answer(choice('{"content":"x"}')).replace('"message":{', '"message": {'),
    'space inside an empty message': answer(choice('{ }')),
    'space inside a message': answer(choice('{ "content":"x"}')),
    'duplicate message keys': answer(choice('{"content":"first"}', ',"message":{"content":"second"}')),
    'duplicate, the kept one spaced': answer(choice('{"content":"first"}', ',"message" :{"content":"second"}')),
    'duplicate, the dropped one spaced': answer(choice('{"content":"first"}', ',"message":{"content":"second"}')).replace('"message":{"content":"first"', '"message" :{"content":"first"'),
    'an escaped key hiding the real message': answer('{"index":0,"\\u006dessage":{"content":"real"},"logprobs":{"message":{}},"finish_reason":"stop"}'),
    'escaped letter inside the key': answer('{"index":0,"messag\\u0065":{"content":"real"},"x":{"message":{}},"finish_reason":"stop"}'),
    'nested extra object keyed message': answer(choice('{"content":"x"}', ',"logprobs":{"message":{"a":1}}')),
    'spaced real message, compact extra': answer('{"index":0,"message" : {"content":"real"},"logprobs":{"message":{}},"finish_reason":"stop"}'),
    'extra message key, not an object': answer(choice('{"content":"x"}', ',"x":{"message":null}')),
    'extra message key, an array': answer(choice('{"content":"x"}', ',"x":{"message":[{}]}')),
    'more message objects than choices, two choices': answer(choice('{"content":"a"}'), choice('{"content":"b"}', ',"x":{"message":{}}')),
    'a literal backslash-u006 (conservative)': answer(choice('{"content":"C:\\\\u006d"}')),
  };
  for (const [title, text] of Object.entries(cases)) {
    JSON.parse(text); // every case is valid JSON
    t.equal(withRefusalText(text, lacksOf(text)), undefined, title);
  }
});

t.test('no message lacking: the text as it is (positions still verified)', async (t) => {
  const text = answer(choice('{"content":"a","refusal":null}'));
  t.equal(withRefusalText(text, [false]), text);
  t.equal(withRefusalText(answer(choice('{"content":"a"}', ',"x":{"message":{}}')), [false]), undefined);
});

t.test('random answers: whenever a text comes back it is exact', async (t) => {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >> 12) % n;
  };
  const keys = ['message', 'content', 'refusal', 'x', 'a"message', 'm\u00e9ssage', 'type', 'role', 'name', 'tool_calls', 'y', 'z'];
  const strings = ['message', '"message":{', 'hi', '\\', '\u00e9', '{"message":{}}', '', 'message"'];
  const value = (depth: number): unknown => {
    const kind = rand(depth > 2 ? 3 : 6);
    if (kind === 0) return strings[rand(strings.length)];
    if (kind === 1) return rand(2) === 0 ? null : rand(100);
    if (kind === 2) return true;
    if (kind === 3) return [value(depth + 1), value(depth + 1)].slice(0, rand(3));
    return object(depth + 1);
  };
  const object = (depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let i = rand(4); i > 0; i--) out[keys[rand(keys.length)]] = value(depth);
    return out;
  };
  /** Writes an object with its keys as given, duplicates allowed, some spacing variants. */
  const write = (entries: [string, string][]): string => `{${entries.map(([k, v]) => `${JSON.stringify(k)}${rand(8) === 0 ? ' : ' : ':'}${v}`).join(',')}}`;
  let put = 0;
  let declined = 0;
  for (let n = 0; n < 3000; n++) {
    const choices: string[] = [];
    for (let c = 1 + rand(3); c > 0; c--) {
      const message = object(1);
      if (rand(3) === 0) delete message.refusal;
      const entries: [string, string][] = [['index', '0'], ['message', JSON.stringify(message)]];
      if (rand(4) === 0) entries.push(['message', JSON.stringify(object(1))]);
      if (rand(4) === 0) entries.push(['extra', JSON.stringify(object(1))]);
      if (rand(6) === 0) entries.unshift(['message', JSON.stringify(object(1))]);
      choices.push(write(entries));
    }
    let text = answer(...choices);
    if (rand(10) === 0) text = text.replace('"message"', '"\\u006dessage"');
    const parsed = JSON.parse(text) as Answer;
    if (!parsed.choices.every((choice) => typeof choice.message === 'object' && choice.message !== null && !Array.isArray(choice.message))) continue;
    if (check(t, text, `random ${n}`)) put++;
    else declined++;
  }
  t.ok(put > 100 && declined > 100, `both outcomes (${put} put in, ${declined} declined)`);
});
