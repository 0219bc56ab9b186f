import type { RawChatRequest } from '../api/chat-types.js';
import { isRecord } from '../is-record.js';
import type { MessagesRequest } from './types.js';

// The Messages model parameters in the chat fields the target provider takes. Messages has one
// output limit (`max_tokens`, required) and two reasoning knobs (`thinking` with a token budget or
// `adaptive`, and `output_config.effort`); chat upstreams have `max_tokens` or
// `max_completion_tokens` and one `reasoning_effort`. What a target cannot take is left out and
// named in x-toolgate-warnings (`warn`), never refused: the client is only being Claude Code.
//
// - `openai` providers get `max_completion_tokens` (OpenAI's o-series and gpt-5 models refuse
//   `max_tokens`; every OpenAI chat model takes `max_completion_tokens`), `reasoning_effort` on its
//   reasoning models only (others refuse it), and no `top_k` (OpenAI has none).
// - `gemini`: `max_tokens` and `reasoning_effort`, which its adapter turns into `thinkingConfig`
//   (a budget on 2.5, a level on 3), and `top_k` (`topK`).
// - every other type (OpenAI-compatible servers: vLLM, SGLang, TGI, Together, HF router, the
//   simulator): `max_tokens`, `reasoning_effort` and `top_k` as sent (they take or ignore them).

export interface Target {
  /** The provider's type (`openai`, `openai-compatible`, `gemini`, `simulator`, …). */
  type: string;
  /** The upstream model id. */
  model: string;
}

/** OpenAI models that take `reasoning_effort`: o1…o9 and gpt-5 (not its `-chat` variants). */
export function isOpenAIReasoningModel(model: string): boolean {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  if (/^o[1-9](?:-|$)/.test(id)) return true;
  return id.startsWith('gpt-5') && !id.includes('-chat');
}

/** Anthropic's effort levels on chat's reasoning_effort (`max`, `xhigh`: the highest every reasoning model takes). */
const EFFORTS: Readonly<Record<string, string>> = { low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' };

/** The effort the request asks for: `output_config.effort` (or a top-level `effort`), else the thinking budget's. */
function wantedEffort(request: MessagesRequest, warn: (kind: string) => void): string | undefined {
  const thinking = request.thinking;
  if (thinking?.type === 'disabled') return undefined;
  const config = isRecord(request.output_config) ? request.output_config : undefined;
  const effort = config?.effort ?? request.effort;
  if (typeof effort === 'string') {
    if (effort in EFFORTS) return EFFORTS[effort];
    warn('reasoning_not_carried');
    return undefined;
  }
  if (thinking?.type !== 'enabled') return undefined; // adaptive without an effort: the upstream's default
  const budget = typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : 0;
  if (budget < 4096) return 'low';
  return budget < 16384 ? 'medium' : 'high';
}

/** Sets the output limit, reasoning effort and top_k on `chat` for `target`. */
export function applyTargetParams(chat: RawChatRequest, request: MessagesRequest, target: Target, warn: (kind: string) => void): void {
  const openai = target.type === 'openai';
  if (openai) chat.max_completion_tokens = request.max_tokens;
  else chat.max_tokens = request.max_tokens;
  if (request.top_k !== undefined) {
    if (openai) warn('top_k_not_carried');
    else chat.top_k = request.top_k;
  }
  const effort = wantedEffort(request, warn);
  if (effort === undefined) return;
  if (openai && !isOpenAIReasoningModel(target.model)) warn('reasoning_not_carried');
  else chat.reasoning_effort = effort;
}
