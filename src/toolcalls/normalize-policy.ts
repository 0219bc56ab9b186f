// Whether an answer's text is searched for tool calls. Text calls leak from open models served
// behind OpenAI-compatible APIs (vLLM, TGI, SGLang without a tool parser, routers in front of them)
// and come back in prompt mode; upstreams whose native tool calling is reliable (OpenAI, Gemini and
// the closed models behind compatible APIs) write calls as calls, so a call-shaped block in their
// text is an example the model is showing, and is left alone. Precision first: a wrong extraction
// runs a tool the user only asked about.

/** `models.<name>.textCalls` / `providers.<name>.textCalls` (docs/configuration.md). */
export type TextCallSetting = 'auto' | 'on' | 'off';

export interface TextCallInputs {
  /** `repair.textToolCalls`: the switch for the whole gateway. */
  enabled: boolean;
  /** The model entry's setting (wins over the provider's unless `auto`). */
  model?: TextCallSetting;
  provider?: TextCallSetting;
  providerType: string;
  upstreamModel: string;
  /** The tools went into the prompt: text is the only way the calls come back. */
  promptMode: boolean;
  toolChoice: unknown;
  hasTools: boolean;
}

/** Provider types whose native tool calling is reliable. */
const NATIVE_PROVIDER_TYPES: ReadonlySet<string> = new Set(['openai', 'gemini']);
/**
 * Closed models with reliable native calls, by upstream id, also behind a router prefix
 * (`openai/gpt-4o`): GPT (not the open gpt-oss), o-series, Claude, Gemini. Anchored, no nested
 * quantifiers: linear on any id.
 */
const NATIVE_MODEL = /^(?:[\w.-]+\/)?(?:gpt-(?!oss)|o[1-9](?:-|$)|chatgpt-|claude-|gemini-)/i;

export function textCallsFor(inputs: TextCallInputs): boolean {
  if (!inputs.enabled || !inputs.hasTools || inputs.toolChoice === 'none') return false;
  if (inputs.promptMode) return true;
  const setting = inputs.model !== undefined && inputs.model !== 'auto' ? inputs.model : (inputs.provider ?? 'auto');
  if (setting !== 'auto') return setting === 'on';
  return !NATIVE_PROVIDER_TYPES.has(inputs.providerType) && !NATIVE_MODEL.test(inputs.upstreamModel);
}
