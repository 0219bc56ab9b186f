import t from 'tap';
import type { ChatChunk, ChatCompletion, FinishReason, ToolCall } from '../../src/api/chat-types.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { createStreamNormalizer } from '../../src/toolcalls/normalize-stream.js';
import { CASES } from './fixtures.js';
import { normalizeContext } from './helpers.js';

// One decision table (normalize-decisions.ts): for any upstream answer, what a client assembles
// from the normalized stream equals the normalized JSON answer (call ids toolgate made aside),
// over native and text answers, whole and cut off, split at random places.

interface Upstream {
  content: string | null;
  calls?: Array<{ id: string; name: string; arguments: string }>;
  finish: FinishReason;
}

interface Assembled {
  role: string | undefined;
  content: string | null;
  reasoning: string | null;
  calls: Array<{ name: string; arguments: string }>;
  finish: FinishReason | null;
}

function fromJson(upstream: Upstream, legacy: boolean): Assembled {
  const message = { role: 'assistant' as const, content: upstream.content, ...(upstream.calls ? { tool_calls: upstream.calls.map((c): ToolCall => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}) };
  const completion: ChatCompletion = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: upstream.finish }] };
  const out = normalizeCompletion(completion, normalizeContext(undefined, { legacyFunctions: legacy })).completion.choices[0];
  const fn = out.message.function_call as { name: string; arguments: string } | undefined;
  return {
    role: out.message.role,
    content: out.message.content === '' ? null : out.message.content,
    reasoning: typeof out.message.reasoning_content === 'string' ? out.message.reasoning_content : null,
    calls: fn ? [fn] : (out.message.tool_calls ?? []).map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
    finish: out.finish_reason,
  };
}

function fromStream(upstream: Upstream, legacy: boolean, random: () => number): Assembled {
  const chunk = (delta: ChatChunk['choices'][0]['delta'], finish: FinishReason | null = null): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  const input: ChatChunk[] = [];
  const text = upstream.content ?? '';
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(random() * 9);
    input.push(chunk(at === 0 && random() < 0.5 ? { role: 'assistant', content: text.slice(at, at + size) } : { content: text.slice(at, at + size) }));
    at += size;
  }
  (upstream.calls ?? []).forEach((c, index) => {
    input.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (let at = 0; at < c.arguments.length; ) {
      const size = 1 + Math.floor(random() * 6);
      input.push(chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(at, at + size) } }] }));
      at += size;
    }
  });
  input.push(chunk({}, upstream.finish));
  const normalizer = createStreamNormalizer(normalizeContext(undefined, { legacyFunctions: legacy }));
  const out: ChatChunk[] = [];
  for (const c of input) normalizer.push(c, out);
  normalizer.end(out);
  const got: Assembled = { role: undefined, content: null, reasoning: null, calls: [], finish: null };
  const legacyCall = { name: '', arguments: '' };
  let sawLegacy = false;
  for (const c of out) {
    for (const choice of c.choices) {
      const delta = choice.delta;
      got.role ??= delta.role;
      if (typeof delta.content === 'string' && delta.content !== '') got.content = (got.content ?? '') + delta.content;
      if (typeof delta.reasoning_content === 'string') got.reasoning = (got.reasoning ?? '') + delta.reasoning_content;
      for (const d of delta.tool_calls ?? []) {
        const call = (got.calls[d.index] ??= { name: '', arguments: '' });
        call.name += d.function?.name ?? '';
        call.arguments += d.function?.arguments ?? '';
      }
      const fn = delta.function_call as { name?: string; arguments?: string } | undefined;
      if (fn) {
        sawLegacy = true;
        legacyCall.name += fn.name ?? '';
        legacyCall.arguments += fn.arguments ?? '';
      }
      if (choice.finish_reason !== null) {
        if (got.finish !== null) throw new Error('finish_reason sent twice');
        got.finish = choice.finish_reason;
      }
    }
  }
  if (sawLegacy) got.calls = [legacyCall];
  return got;
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const NATIVE: Upstream[] = [
  { content: null, calls: [{ id: 'call_aaaaaaaaaaaaaaaaaaaaaaaa', name: 'get_weather', arguments: '{"city": "Paris", "days": "3"}' }], finish: 'tool_calls' },
  { content: 'Checking both.', calls: [{ id: 'call_0', name: 'functions.get_time', arguments: '' }, { id: 'call_0', name: 'GET_WEATHER', arguments: "{'city': 'Oslo'}" }], finish: 'stop' },
  { content: null, calls: [{ id: 'call_bbbbbbbbbbbbbbbbbbbbbbbb', name: 'launch_rockets', arguments: '{}' }], finish: 'tool_calls' },
  { content: null, calls: [{ id: 'call_cccccccccccccccccccccccc', name: 'get_weather', arguments: '{"city": "San Francis' }], finish: 'length' },
  { content: null, calls: [{ id: 'call_dddddddddddddddddddddddd', name: 'get_time', arguments: '   ' }], finish: 'tool_calls' },
];

t.test('the stream assembles to the JSON answer: native answers, text answers, cut off or not, legacy or not', async (t) => {
  const answers: Upstream[] = [...NATIVE];
  for (const c of CASES) for (const finish of ['stop', 'length'] as const) answers.push({ content: c.text, finish });
  let compared = 0;
  for (const [n, upstream] of answers.entries()) {
    for (const legacy of [false, true]) {
      const json = fromJson(upstream, legacy);
      for (let split = 0; split < 3; split++) {
        const stream = fromStream(upstream, legacy, seeded(1000 * n + 10 * split + (legacy ? 1 : 0)));
        t.same(stream, json, `answer ${n} (${JSON.stringify((upstream.content ?? upstream.calls?.[0]?.name ?? '').slice(0, 40))}, ${upstream.finish}${legacy ? ', legacy' : ''}) split ${split}`);
        compared++;
      }
    }
  }
  t.ok(compared > 300, `${compared} comparisons`);
});
