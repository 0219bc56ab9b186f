import t from 'tap';
import { errors } from '../../src/errors.js';
import { knownReasoningEcho, ReasoningSupportMemory, saysReasoningMissing, saysReasoningRejected, withoutReasoning } from '../../src/pipeline/reasoning-support.js';

// Upstream wordings, as reported (see src/pipeline/reasoning-support.ts).
const bad = (message: string, status = 400) => errors.upstreamStatus(status, message);

t.test("an upstream's 400 says it wants the reasoning back", async (t) => {
  for (const message of [
    'Missing `reasoning_content` field in the assistant message at message index 46. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
    'litellm.BadRequestError: OpenAIException - messages[51]: assistant message with tool_calls must include reasoning_content.',
    'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, … position 2.',
  ]) {
    t.ok(saysReasoningMissing(bad(message)), message.slice(0, 40));
    t.notOk(saysReasoningRejected(bad(message)));
  }
  t.notOk(saysReasoningMissing(bad('Missing `reasoning_content` field', 500)), 'only a 400');
});

t.test('the reasoning echo is learned from the field name and words of need, in the wordings upstreams use', async (t) => {
  // As reported in client projects' issues (DeepSeek V4, Xiaomi MiMo, Moonshot Kimi K2.5, Vertex AI).
  for (const message of [
    'The `reasoning_content` in the thinking mode must be passed back to the API.',
    'The reasoning_content in the thinking mode must be passed back to the API',
    'Upstream request failed: [invalid_request_error] The reasoning_content in the thinking mode must be passed back to the API.',
    'thinking is enabled but reasoning_content is missing in assistant tool call message at index 3',
    "Unable to submit request because function call `project_search` in the 2. content block is missing a `thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures",
    'messages[4]: reasoning_details are required for assistant messages with tool_calls',
  ]) {
    t.ok(saysReasoningMissing(bad(message)), message.slice(0, 60));
    t.notOk(saysReasoningRejected(bad(message)), `not a refusal: ${message.slice(0, 40)}`);
  }
  for (const message of [
    'reasoning_content must not be set when thinking is disabled',
    'Corrupted thought signature.',
    'Invalid reasoning_content: expected a string',
    'The model is required. Please pass `model`.',
    'messages.1.assistant.reasoning_content: Extra inputs are not permitted',
  ]) {
    t.notOk(saysReasoningMissing(bad(message)), `not a need: ${message}`);
  }
  const request = { messages: [{ role: 'user', content: 'Why is the reasoning_content missing? It must be passed back, I think.' }] };
  t.ok(saysReasoningMissing(bad('The `reasoning_content` in the thinking mode must be passed back to the API.'), request), 'the same words among other words: still the upstream\'s');
  t.notOk(saysReasoningMissing(new Error('Missing `reasoning_content` field')), 'only an upstream status');
});

t.test("an upstream's 400 says it refuses the field", async (t) => {
  for (const message of [
    "messages.2.assistant.reasoning_content: property 'messages.2.assistant.reasoning_content' is unsupported",
    "Unknown parameter: 'messages[1].reasoning_content'.",
    'messages.1.assistant.reasoning_content: Extra inputs are not permitted',
  ]) {
    t.ok(saysReasoningRejected(bad(message)), message);
  }
  t.notOk(saysReasoningRejected(bad("Invalid 'tools': empty array.")));
  t.notOk(saysReasoningRejected(bad(`${'x'.repeat(3000)} reasoning_content is unsupported`)), 'read up to a bound');
});

t.test('known models; the rest learned, per provider/model', async (t) => {
  t.equal(knownReasoningEcho('openai-compatible', 'deepseek-ai/DeepSeek-V3.2'), 'required');
  t.equal(knownReasoningEcho('openai-compatible', 'moonshotai/Kimi-K2-Thinking'), 'required');
  t.equal(knownReasoningEcho('openai-compatible', 'zai-org/GLM-4.7'), 'required');
  t.equal(knownReasoningEcho('openai-compatible', 'gemini-3-pro-preview'), 'required');
  t.equal(knownReasoningEcho('openai-compatible', 'gemini-2.5-flash'), undefined);
  t.equal(knownReasoningEcho('gemini', 'gemini-3-pro-preview'), undefined, 'the native adapter restores signatures itself');
  t.equal(knownReasoningEcho('openai', 'gpt-4o'), undefined);
  const memory = new ReasoningSupportMemory();
  memory.learn('cb/llama', 'rejected');
  t.equal(memory.echoOf('openai-compatible', 'cb/llama', 'llama'), 'rejected');
  t.equal(memory.echoOf('openai-compatible', 'other/llama', 'llama'), undefined);
  memory.learn('cb/deepseek-r1', 'rejected');
  t.equal(memory.echoOf('openai-compatible', 'cb/deepseek-r1', 'deepseek-r1'), 'rejected', 'learned beats known');
});

t.test('withoutReasoning removes the field from assistant messages only, same object when none', async (t) => {
  const plain = { model: 'm', messages: [{ role: 'user' as const, content: 'q' }] };
  t.equal(withoutReasoning(plain), plain);
  const out = withoutReasoning({ model: 'm', messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', reasoning_content: 'r' }] });
  t.same(out.messages[1], { role: 'assistant', content: 'a' });
});

t.test('learned for the gateway key whose request taught it, from the upstream\'s own words', async (t) => {
  const memory = new ReasoningSupportMemory();
  memory.learn('cb/llama', 'rejected', 'scope-a');
  t.equal(memory.echoOf('openai-compatible', 'cb/llama', 'llama', 'scope-a'), 'rejected');
  t.equal(memory.echoOf('openai-compatible', 'cb/llama', 'llama', 'scope-b'), undefined, "another key's requests keep their reasoning");
  t.equal(memory.echoOf('openai-compatible', 'cb/llama', 'llama'), undefined, 'and the anonymous client too');
  const quoted = "property 'messages.2.assistant.reasoning_content' is unsupported";
  const planted = { messages: [{ role: 'user', content: `repeat after me: ${quoted}` }] };
  t.notOk(saysReasoningRejected(bad(`Bad request: repeat after me: ${quoted}`), planted), 'words the client sent, echoed');
  t.ok(saysReasoningRejected(bad(quoted), { messages: [{ role: 'user', content: 'hi' }] }), "the upstream's own words");
  t.notOk(saysReasoningMissing(bad('Missing `reasoning_content` field'), { messages: [{ role: 'user', content: 'say Missing `reasoning_content` field' }] }), 'missing: echoed words likewise');
});
