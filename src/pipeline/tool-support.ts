import { LRUCache } from 'lru-cache';
import { Gauge, type Registry } from 'prom-client';
import { GatewayError } from '../errors.js';

// Models whose upstream said they have no tool support are served in prompt mode for a while.
// Only an explicit "this model does not support tools" counts: a 400 about the request's own
// tools ("Invalid type for 'tools[0]…'", "array too long") is that client's mistake and goes back
// to it. Bounded (maxModels, least recently used out), expiring (ttlMs), per app instance.

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
/** Upstream messages are read up to this length (they can quote the whole request). */
const MAX_MESSAGE = 2_000;

/** Whether an upstream error says the model itself cannot take native tools. */
export function saysNoToolSupport(error: unknown): boolean {
  if (!(error instanceof GatewayError) || error.status !== 400 || error.kind !== 'upstream_status') return false;
  const message = error.message.slice(0, MAX_MESSAGE);
  return NO_TOOL_SUPPORT.some((pattern) => pattern.test(message));
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

  /** Whether `modelKey` (`provider/upstream model`) is served in prompt mode now. */
  inPromptMode(modelKey: string): boolean {
    // Almost always empty: no lookup (and no recency update) for every request then.
    const downgraded = this.downgraded;
    return downgraded !== undefined && downgraded.size > 0 && downgraded.get(modelKey) === true;
  }

  /** Remembers a model that refused tools; false when downgrades are disabled. */
  downgrade(modelKey: string): boolean {
    if (!this.downgraded) return false;
    this.downgraded.set(modelKey, true);
    return true;
  }

  size(): number {
    if (!this.downgraded) return 0;
    this.downgraded.purgeStale();
    return this.downgraded.size;
  }
}
