import t from 'tap';
import type { ChatChunk, ChatCompletion } from '../../src/api/chat-types.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { textCallsFor } from '../../src/toolcalls/normalize-policy.js';
import { createStreamNormalizer } from '../../src/toolcalls/normalize-stream.js';
import { NO_CALL_ANSWERS } from './answer-corpus.js';
import { normalizeContext, TOOLS } from './helpers.js';

// 100+ answers that contain no call (plain prose, code and JSON samples, tool documentation, answers
// quoting or explaining calls) stay byte for byte what the upstream wrote: on a native upstream
// (where text is not searched), and on an open-model upstream too (where it is, and the precision
// rules must hold them), in JSON and in a stream.

function completionOf(content: string): ChatCompletion {
  return { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
}

function streamed(content: string, textParsing: boolean): { text: string; calls: number; finish: string | null } {
  const chunk = (delta: ChatChunk['choices'][0]['delta'], finish: ChatChunk['choices'][0]['finish_reason'] = null): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  const input = [chunk({ role: 'assistant', content: '' })];
  const chars = [...content];
  for (let at = 0, n = 0; at < chars.length; n++) {
    const size = 1 + (n % 5);
    input.push(chunk({ content: chars.slice(at, at + size).join('') }));
    at += size;
  }
  input.push(chunk({}, 'stop'));
  const normalizer = createStreamNormalizer(normalizeContext(TOOLS, { textParsing }));
  const out: ChatChunk[] = [];
  for (const c of input) normalizer.push(c, out);
  normalizer.end(out);
  let text = '';
  let calls = 0;
  let finish: string | null = null;
  for (const c of out) {
    for (const choice of c.choices) {
      text += choice.delta.content ?? '';
      calls += choice.delta.tool_calls?.length ?? 0;
      finish = choice.finish_reason ?? finish;
    }
  }
  return { text, calls, finish };
}

const base = { enabled: true, promptMode: false, toolChoice: 'auto', hasTools: true };
const upstreams = [
  { label: 'native upstream (OpenAI)', textParsing: textCallsFor({ ...base, providerType: 'openai', upstreamModel: 'gpt-4o' }) },
  { label: 'GPT behind a router', textParsing: textCallsFor({ ...base, providerType: 'openai-compatible', upstreamModel: 'openai/gpt-4.1' }) },
  { label: 'open model (text searched)', textParsing: textCallsFor({ ...base, providerType: 'openai-compatible', upstreamModel: 'meta-llama/Llama-3.3-70B-Instruct' }) },
];

t.test('the corpus is large enough and holds no duplicates', async (t) => {
  t.ok(NO_CALL_ANSWERS.length >= 100, `${NO_CALL_ANSWERS.length} answers`);
  t.equal(new Set(NO_CALL_ANSWERS).size, NO_CALL_ANSWERS.length);
});

t.test('answers without a call stay byte for byte, JSON and stream', async (t) => {
  t.same(
    upstreams.map((u) => u.textParsing),
    [false, false, true],
    'text is searched only on the open model',
  );
  for (const upstream of upstreams) {
    const ctx = normalizeContext(TOOLS, { textParsing: upstream.textParsing });
    let unchanged = 0;
    for (const content of NO_CALL_ANSWERS) {
      const input = completionOf(content);
      const { completion, report } = normalizeCompletion(input, ctx);
      const stream = streamed(content, upstream.textParsing);
      const same = completion === input && report.toolCalls === 0 && stream.text === content && stream.calls === 0 && stream.finish === 'stop';
      if (!same) t.fail(`${upstream.label}: changed ${JSON.stringify(content.slice(0, 80))}`);
      else unchanged++;
    }
    t.equal(unchanged, NO_CALL_ANSWERS.length, `${upstream.label}: all ${unchanged} unchanged`);
  }
});
