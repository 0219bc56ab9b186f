import fc from 'fast-check';
import t from 'tap';
import { settledHeap } from '../helpers/heap.js';
import type { ChatChunk } from '../../src/api/chat-types.js';
import { ChunkTemplates } from '../../src/providers/chunk-template.js';

// A content event recognized from its text must give exactly the chunk JSON.parse gives (same keys,
// same order, same values), and anything that is not the learned event with another content string
// must be left to the parser.

const chunk = (content: unknown, extra: Record<string, unknown> = {}, choiceExtra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null, ...choiceExtra }],
  ...extra,
});

function learned(raw: string): ChunkTemplates {
  const template = new ChunkTemplates();
  template.learn(JSON.parse(raw) as ChatChunk, raw);
  return template;
}

/** Python's json.dumps default (vLLM, SGLang): non-ASCII as \uXXXX escapes. */
const asciiJson = (value: unknown): string => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

t.test('a content event like the learned one is built without parsing, equal to JSON.parse', async (t) => {
  const template = learned(JSON.stringify(chunk('Hel')));
  for (const content of ['lo', '', ' world', 'a "quoted" \\ word', 'line\nbreak\ttab', 'Voilà 🌦 東京', '</tool_call>', '"content":"x"']) {
    const raw = JSON.stringify(chunk(content));
    const built = template.match(raw);
    t.ok(built, `recognized: ${JSON.stringify(content)}`);
    t.equal(JSON.stringify(built), JSON.stringify(JSON.parse(raw)), 'same keys, order and values');
  }
  const ascii = learned(asciiJson(chunk('Hel')));
  const raw = asciiJson(chunk('Voilà 🌦'));
  t.equal(ascii.match(raw)?.choices[0].delta.content, 'Voilà 🌦', '\\u escapes decoded as JSON.parse does');
});

t.test('a change made to the learned chunk downstream (usage removed for the client) does not reach later chunks', async (t) => {
  const raw = (content: string): string => JSON.stringify(chunk(content, { usage: null }));
  const parsed = JSON.parse(raw('Hel')) as ChatChunk;
  const template = new ChunkTemplates();
  template.learn(parsed, raw('Hel'));
  delete parsed.usage; // what the chat route does when the client did not ask for usage
  parsed.choices[0].delta.content = 'changed';
  t.equal(JSON.stringify(template.match(raw('lo'))), JSON.stringify(JSON.parse(raw('lo'))));
});

t.test('events that are not the learned one with another content string are left to the parser', async (t) => {
  const template = learned(JSON.stringify(chunk('Hel')));
  const others = {
    'another id': JSON.stringify({ ...chunk('x'), id: 'chatcmpl-2' }),
    'a finish': JSON.stringify(chunk('x', {}, { finish_reason: 'stop' })),
    'usage added': JSON.stringify(chunk('x', { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })),
    'a tool call': JSON.stringify(chunk('x', {}, { delta: { content: 'x', tool_calls: [{ index: 0, function: { arguments: '{}' } }] } })),
    'content null': JSON.stringify(chunk(null)),
    'content not a string': '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":5},"logprobs":null,"finish_reason":null}]}',
    'two strings where one was': '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a","b":"c"},"logprobs":null,"finish_reason":null}]}',
    'a stray quote': '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"b"},"logprobs":null,"finish_reason":null}]}',
    'a raw line break': '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a\nb"},"logprobs":null,"finish_reason":null}]}',
    'a bad escape': '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a\\qb"},"logprobs":null,"finish_reason":null}]}',
  };
  for (const [name, raw] of Object.entries(others)) t.equal(template.match(raw), undefined, name);
});

t.test('argument fragments of one call are recognized the same way', async (t) => {
  const fragment = (args: string, call: Record<string, unknown> = {}): string => JSON.stringify(chunk(null, {}, { delta: { tool_calls: [{ index: 0, function: { arguments: args }, ...call }] } }));
  const template = learned(fragment('{"ci'));
  for (const args of ['ty": "Paris"', '}', '', '\\"quoted\\"']) {
    const raw = fragment(args);
    t.equal(JSON.stringify(template.match(raw)), JSON.stringify(JSON.parse(raw)), `recognized: ${JSON.stringify(args)}`);
  }
  t.equal(template.match(fragment('x', { id: 'call_1', type: 'function' })), undefined, "a call's first delta (id, name) is parsed");
  t.equal(learned(fragment('x', { function: { name: 'f', arguments: 'x', extra: { a: 1 } } })).match(fragment('y')), undefined, 'nested objects: no template');
});

t.test('an empty string teaches nothing: the opening role event and a call\'s first delta are not learned from', async (t) => {
  const role = JSON.stringify({ ...chunk(''), choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
  t.equal(learned(role).match(role.replace('"content":""', '"content":"Hel"')), undefined, 'role event: no content template');
  t.equal(learned(JSON.stringify(chunk(''))).match(JSON.stringify(chunk('Hel'))), undefined, 'empty content: no template');
  const header = (args: string): string => JSON.stringify(chunk(null, {}, { delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: args } }] } }));
  t.equal(learned(header('')).match(header('{"a')), undefined, "a call's first delta with empty arguments: no argument template");
  // A non-empty string still teaches, whatever else the delta repeats (some upstreams repeat the role, id or name).
  t.ok(learned(role.replace('"content":""', '"content":"Hi"')).match(role.replace('"content":""', '"content":"there"')), 'role with content: learned');
  t.ok(learned(header('{"a')).match(header('":1}')), 'id and name with arguments: learned');
});

t.test('only single content deltas and single argument fragments become templates', async (t) => {
  const usage = JSON.stringify({ ...chunk('x'), choices: [], usage: { prompt_tokens: 1 } });
  const cases = {
    'usage only': usage,
    'logprobs object': JSON.stringify(chunk('x', {}, { logprobs: { content: [{ token: 'x' }] } })),
    'two choices': JSON.stringify({ ...chunk('x'), choices: [chunk('x').choices, chunk('y').choices].flat() }),
    'usage object beside content': JSON.stringify(chunk('x', { usage: { prompt_tokens: 1 } })),
    '"content": twice': JSON.stringify(chunk('x', { content: 'top' })),
    'tool calls': JSON.stringify(chunk('x', {}, { delta: { content: 'x', tool_calls: [] } })),
  };
  for (const [name, raw] of Object.entries(cases)) {
    t.equal(learned(raw).match(JSON.stringify(JSON.parse(raw))), undefined, name);
  }
});

t.test('property: whatever is recognized equals JSON.parse of the same text', async () => {
  const text = fc.string({ unit: 'binary', maxLength: 12 });
  // A learned string is never empty (an empty one teaches nothing, see above).
  const shape = fc.record({ id: text, model: text, content: text.map((s) => s || 'x'), extra: fc.option(fc.constantFrom('usage', 'fingerprint', 'role', 'args')), ascii: fc.boolean() });
  const middle = fc.oneof(
    text.map((s) => JSON.stringify(s)),
    text,
    fc.tuple(text, text).map(([a, b]) => `${JSON.stringify(a)},${JSON.stringify(b)}`),
    fc.constantFrom('"\\"', '"a\\"', '"\\u12"', '"\\ud800"', '""', '"', '"a"b"', '"\\\\"'),
  );
  fc.assert(
    fc.property(shape, text, middle, (s, next, mid) => {
      const value = (content: string): Record<string, unknown> => {
        const base = { ...chunk(content), id: s.id, model: s.model };
        if (s.extra === 'usage') return { ...base, usage: null };
        if (s.extra === 'fingerprint') return { ...base, system_fingerprint: 'fp_1' };
        if (s.extra === 'role') return { ...base, choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }] };
        if (s.extra === 'args') return { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: content } }] }, finish_reason: null }] };
        return base;
      };
      const encode = s.ascii ? asciiJson : JSON.stringify;
      const first = encode(value(s.content));
      const template = learned(first);
      // The same shape with another content string is always recognized, and equal.
      const again = encode(value(next));
      const built = template.match(again);
      if (JSON.stringify(built) !== JSON.stringify(JSON.parse(again))) throw new Error(`not equal for ${again}`);
      // Any text between the learned prefix and suffix: recognized only when it parses to the same.
      const key = s.extra === 'args' ? '"arguments":' : '"content":';
      const at = first.indexOf(key) + key.length;
      const tail = first.slice(at + encode(s.content).length);
      const spliced = first.slice(0, at) + mid + tail;
      const guess = template.match(spliced);
      if (guess !== undefined && JSON.stringify(guess) !== JSON.stringify(JSON.parse(spliced))) throw new Error(`wrongly recognized ${spliced}`);
    }),
    { numRuns: 1000, seed: 17 },
  );
});

t.test('a "__proto__" key is a plain key for JSON.parse: such an event is never built from a template', async (t) => {
  for (const raw of [
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","__proto__":null,"choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null}]}',
    '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"__proto__":"x","content":"Hel"},"logprobs":null,"finish_reason":null}]}',
  ]) {
    const template = learned(raw);
    const next = raw.replace('"Hel"', '"lo"');
    const built = template.match(next);
    // Built or not, it must be what JSON.parse gives: an own "__proto__" key, Object.prototype kept.
    if (built !== undefined) {
      const parsed = JSON.parse(next) as ChatChunk;
      t.same(Object.keys(built.choices[0].delta), Object.keys(parsed.choices[0].delta));
      t.same(Object.keys(built), Object.keys(parsed));
    }
    t.equal(built, undefined, 'left to the parser');
  }
});

/** The heap after full GCs, for the memory tests below (earlier tests' garbage collected first). */
// A template lives as long as its stream. The event text it learns from is a slice of the whole
// network read (what the SSE parser hands out), and a V8 slice keeps its parent: a template kept the
// whole read (a burst: kilobytes per stream). Counted in heap bytes after a full GC, not timed.
t.test('a template keeps only its own prefix and suffix, not the network read its event came in', async (t) => {
  const event = (i: number): string => JSON.stringify(chunk(`token ${i}`));
  const streams = 500;
  let kept: ChunkTemplates[] = [];
  let readBytes = 0;
  const before = await settledHeap();
  for (let s = 0; s < streams; s++) {
    let read = '';
    for (let i = 0; i < 40; i++) read += `data: ${event(i)}\n\n`;
    read = JSON.parse(JSON.stringify(`${read}: stream ${s}\n\n`)) as string; // one flat string per read
    readBytes = read.length;
    const raw = read.slice(read.indexOf('{'), read.indexOf('\n\n'));
    kept.push(learned(raw));
  }
  t.ok(kept.every((template) => template.match(JSON.stringify(chunk('other')))?.choices[0].delta.content === 'other'), 'every template still works');
  const withTemplates = await settledHeap();
  kept = [];
  const perStream = (withTemplates - Math.max(before, await settledHeap())) / streams;
  t.ok(perStream < readBytes / 2, `${Math.round(perStream)} bytes kept per template (a read is ${readBytes} characters)`);
});

t.test('a content string built from a template does not keep the read it came in (the recorder keeps every one)', async (t) => {
  const template = learned(JSON.stringify(chunk('the first content string')));
  const reads = 500;
  let contents: string[] = [];
  let readBytes = 0;
  const before = await settledHeap();
  for (let r = 0; r < reads; r++) {
    let read = '';
    for (let i = 0; i < 40; i++) read += `data: ${JSON.stringify(chunk(`content number ${r}.${i} of this read`))}\n\n`;
    read = JSON.parse(JSON.stringify(read)) as string; // one flat string per read
    readBytes = read.length;
    const content = template.match(read.slice(read.indexOf('{'), read.indexOf('\n\n')))?.choices[0].delta.content;
    if (typeof content === 'string') contents.push(content);
  }
  t.equal(contents.length, reads, 'every event was built from the template');
  t.equal(contents[7], 'content number 7.0 of this read');
  const withContents = await settledHeap();
  contents = [];
  const perContent = (withContents - Math.max(before, await settledHeap())) / reads;
  t.ok(perContent < readBytes / 2, `${Math.round(perContent)} bytes kept per content string (a read is ${readBytes} characters)`);
});
