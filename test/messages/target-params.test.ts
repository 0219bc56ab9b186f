import t from 'tap';
import type { RawChatRequest } from '../../src/api/chat-types.js';
import { applyTargetParams, isOpenAIReasoningModel, type Target } from '../../src/messages/target-params.js';
import type { MessagesRequest } from '../../src/messages/types.js';
import { startOpenAIEmulator, type Script } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// The Messages model parameters per target: max_tokens → max_completion_tokens for OpenAI (its
// reasoning models refuse max_tokens), thinking budgets and output_config.effort → reasoning_effort
// where the target takes it, and a warning (never a 400) for what it cannot take.

// Claude Code 2.1.332's parameters (recorded from test/agents).
const CLAUDE_CODE: MessagesRequest = { model: 'x', max_tokens: 32000, messages: [], thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'high' } };

function apply(request: MessagesRequest, target: Target): { chat: RawChatRequest; warnings: string[] } {
  const chat: RawChatRequest = { model: 'x', messages: [] };
  const warnings: string[] = [];
  applyTargetParams(chat, request, target, (kind) => warnings.push(kind));
  const { model: _model, messages: _messages, ...params } = chat;
  return { chat: params as RawChatRequest, warnings };
}

t.test('per provider type', async (t) => {
  t.same(apply(CLAUDE_CODE, { type: 'openai', model: 'gpt-5' }), { chat: { max_completion_tokens: 32000, reasoning_effort: 'high' }, warnings: [] }, 'OpenAI reasoning model');
  t.same(apply(CLAUDE_CODE, { type: 'openai', model: 'o3-mini' }), { chat: { max_completion_tokens: 32000, reasoning_effort: 'high' }, warnings: [] });
  t.same(apply(CLAUDE_CODE, { type: 'openai', model: 'gpt-4.1' }), { chat: { max_completion_tokens: 32000 }, warnings: ['reasoning_not_carried'] }, 'OpenAI model without reasoning: said, not sent');
  t.same(apply({ ...CLAUDE_CODE, top_k: 40 }, { type: 'openai', model: 'gpt-5-chat-latest' }), { chat: { max_completion_tokens: 32000 }, warnings: ['top_k_not_carried', 'reasoning_not_carried'] });
  t.same(apply({ ...CLAUDE_CODE, top_k: 40 }, { type: 'gemini', model: 'gemini-2.5-flash' }), { chat: { max_tokens: 32000, top_k: 40, reasoning_effort: 'high' }, warnings: [] }, 'Gemini: its adapter makes thinkingConfig of it');
  t.same(apply(CLAUDE_CODE, { type: 'openai-compatible', model: 'Qwen/Qwen3-Coder' }), { chat: { max_tokens: 32000, reasoning_effort: 'high' }, warnings: [] });

  const effort = (request: Partial<MessagesRequest>) => apply({ ...CLAUDE_CODE, thinking: undefined, output_config: undefined, ...request }, { type: 'openai-compatible', model: 'm' });
  t.equal(effort({ output_config: { effort: 'max' } }).chat.reasoning_effort, 'high', 'max → high');
  t.equal(effort({ output_config: { effort: 'low' }, thinking: { type: 'enabled', budget_tokens: 30000 } }).chat.reasoning_effort, 'low', 'effort over the budget');
  t.equal(effort({ effort: 'medium' }).chat.reasoning_effort, 'medium', 'a top-level effort');
  t.equal(effort({ thinking: { type: 'enabled', budget_tokens: 20000 } }).chat.reasoning_effort, 'high', 'the budget when no effort');
  t.equal(effort({ thinking: { type: 'adaptive' } }).chat.reasoning_effort, undefined, "adaptive without effort: the upstream's default");
  t.equal(effort({ thinking: { type: 'disabled' }, output_config: { effort: 'high' } }).chat.reasoning_effort, undefined, 'thinking disabled: none');
  t.same(effort({ output_config: { effort: 'ultra' } }), { chat: { max_tokens: 32000 }, warnings: ['reasoning_not_carried'] }, 'an unknown effort: said');

  for (const model of ['o1', 'o3', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5.2', 'gpt-5-codex', 'openai/gpt-5']) t.ok(isOpenAIReasoningModel(model), model);
  for (const model of ['gpt-4.1', 'gpt-4o', 'gpt-5-chat-latest', 'omni-moderation-latest', 'o']) t.notOk(isOpenAIReasoningModel(model), model);
});

// OpenAI's refusals, as its API words them.
const script: Script = (request) => {
  const reasoning = /^(o\d|gpt-5)/.test(request.model);
  if (reasoning && request.max_tokens !== undefined) {
    return { error: { status: 400, body: { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } } } };
  }
  if (!reasoning && request.reasoning_effort !== undefined) {
    return { error: { status: 400, body: { error: { message: "Unrecognized request argument supplied: reasoning_effort", type: 'invalid_request_error', param: null, code: null } } } };
  }
  return { text: `max ${String(request.max_completion_tokens ?? request.max_tokens)}, effort ${String(request.reasoning_effort)}` };
};

t.test('Claude Code on OpenAI models, reasoning or not', async (t) => {
  const up = await startOpenAIEmulator({ apiKey: 'sk-up', script });
  const gw = await startGateway({ yaml: configFor({ oa: { type: 'openai', baseUrl: up.url, apiKey: 'sk-up', extra: '    retry:\n      maxAttempts: 1\n' } }), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await up.close();
  });
  const post = (model: string) =>
    fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'effort-2025-11-24' },
      body: JSON.stringify({ ...CLAUDE_CODE, model, messages: [{ role: 'user', content: 'hi' }] }),
    });
  const gpt5 = await post('oa/gpt-5');
  t.equal(gpt5.status, 200, 'gpt-5 takes the request');
  t.equal(((await gpt5.json()) as any).content[0].text, 'max 32000, effort high');
  t.equal(gpt5.headers.get('x-toolgate-warnings'), null);
  const gpt41 = await post('oa/gpt-4.1');
  t.equal(gpt41.status, 200, 'gpt-4.1 takes the request');
  t.equal(((await gpt41.json()) as any).content[0].text, 'max 32000, effort undefined');
  t.equal(gpt41.headers.get('x-toolgate-warnings'), 'reasoning_not_carried=1', 'what was not carried is said');
});
