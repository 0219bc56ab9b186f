import { LRUCache } from 'lru-cache';
import { Gauge, type Registry } from 'prom-client';
import { saysItself, upstream400Message } from '../request-echo.js';
import { ANONYMOUS_SCOPE, scopedKey } from '../util/scope.js';

// Models whose upstream said they have no tool support are served in prompt mode for a while.
// Only an explicit "this model does not support tools" counts: a 400 about the request's own
// tools ("Invalid type for 'tools[0]…'", "array too long") is that client's mistake and goes back
// to it. Only the provider's own words count: some servers quote the request in their 400s, so a
// phrase that also appears in any string the client sent could be its own text echoed back, and is
// not trusted. What is learned is scoped to the gateway key whose request taught it (a client can
// only ever downgrade a model for itself). Bounded (maxModels, least recently used out, every key
// together), expiring (ttlMs), per app instance.

export interface DowngradeSettings {
  enabled: boolean;
  maxModels: number;
  ttlMs: number;
}

// Wordings of upstreams without tool support (OpenAI, Ollama, Together, TGI, vLLM without a tool
// parser). Anchored on the words, no nested quantifiers: linear on any message.
const NO_TOOL_SUPPORT = [
  /\bdoes not support (?:tools|tool use|tool calling|tool calls|function calling|function calls)\b/i,
  /(?:^|[\s'"`])(?:tools|tool use|tool calling|function calling)['"`]? (?:is|are) not supported\b/i,
  /\bmodel (?:does not|doesn't) support (?:tools|function calling)\b/i,
  /"auto" tool choice requires --enable-auto-tool-choice/i,
  // Hugging Face router / TGI: "The following parameters are not supported for this model: tools, tool_choice"
  /\bparameters? (?:is|are) not supported (?:for|by) (?:this|the) model: [\w ,]{0,200}\btools\b/i,
];

/**
 * Whether an upstream error says the model itself cannot take native tools, in words that are not in
 * `request` (the body sent upstream: each of its strings could be echoed back in the message).
 */
export function saysNoToolSupport(error: unknown, request?: unknown): boolean {
  const message = upstream400Message(error);
  return message !== undefined && saysItself(message, NO_TOOL_SUPPORT, request);
}

export class ToolSupportMemory {
  private readonly downgraded: LRUCache<string, true> | undefined;

  constructor(
    readonly settings: DowngradeSettings,
    registry?: Registry,
  ) {
    this.downgraded = settings.enabled ? new LRUCache<string, true>({ max: settings.maxModels, ttl: settings.ttlMs }) : undefined;
    if (registry) {
      const size = (): number => this.size();
      new Gauge({
        name: 'toolgate_prompt_mode_models',
        help: 'Models currently served in prompt mode because their upstream refused native tools (expire after promptModeDowngrade.ttlMs).',
        registers: [registry],
        collect() {
          this.set(size());
        },
      });
    }
  }

  /** Whether `modelKey` (`provider/upstream model`) is served in prompt mode now, for the gateway key of `scope`. */
  inPromptMode(modelKey: string, scope: string = ANONYMOUS_SCOPE): boolean {
    // Almost always empty: no lookup (and no recency update) for every request then.
    const downgraded = this.downgraded;
    return downgraded !== undefined && downgraded.size > 0 && downgraded.get(scopedKey(scope, modelKey)) === true;
  }

  /** Remembers a model that refused tools, for the gateway key of `scope`; false when downgrades are disabled. */
  downgrade(modelKey: string, scope: string = ANONYMOUS_SCOPE): boolean {
    if (!this.downgraded) return false;
    this.downgraded.set(scopedKey(scope, modelKey), true);
    return true;
  }

  size(): number {
    if (!this.downgraded) return 0;
    this.downgraded.purgeStale();
    return this.downgraded.size;
  }
}
