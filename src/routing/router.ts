import type { GatewayConfig, ModelConfig } from '../config/schema.js';
import { errors } from '../errors.js';
import type { ProviderAdapter } from '../providers/types.js';

export interface ResolvedModel {
  /** The name the client used. */
  requested: string;
  provider: ProviderAdapter;
  /** Sent upstream unchanged (may contain '/' and ':'). */
  upstreamModel: string;
  /** Present when `requested` is a configured friendly name. */
  config?: ModelConfig;
  toolCalling: 'native' | 'prompt';
  /** Friendly names or provider/model ids to try in order when this one fails. */
  fallbacks: string[];
}

/** Resolves `model` to a provider: a configured friendly name, else `<provider>/<upstream id>`. */
export class ModelRouter {
  private readonly friendly = new Map<string, ResolvedModel>();
  /** `<provider>/<upstream id>` → the configured entry for that target, built once. */
  private readonly byTarget = new Map<string, ResolvedModel>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly providers: ReadonlyMap<string, ProviderAdapter>,
  ) {
    for (const [name, model] of Object.entries(config.models)) {
      const provider = providers.get(model.provider);
      if (!provider) continue; // the config schema already rejects unknown providers
      this.friendly.set(name, {
        requested: name,
        provider,
        upstreamModel: model.model,
        config: model,
        toolCalling: model.toolCalling,
        fallbacks: model.fallbacks,
      });
      const target = `${model.provider}/${model.model}`;
      if (!this.byTarget.has(target)) this.byTarget.set(target, this.friendly.get(name) as ResolvedModel);
    }
  }

  resolve(model: string): ResolvedModel {
    const configured = this.friendly.get(model);
    if (configured) return configured;
    const slash = model.indexOf('/');
    if (slash > 0 && slash < model.length - 1) {
      const provider = this.providers.get(model.slice(0, slash));
      if (provider) {
        const upstreamModel = model.slice(slash + 1);
        // A configured entry for the same provider + id lends its settings (pricing, toolCalling).
        const sameTarget = this.byTarget.get(model);
        return {
          requested: model,
          provider,
          upstreamModel,
          config: sameTarget?.config,
          toolCalling: sameTarget?.toolCalling ?? 'native',
          fallbacks: sameTarget?.fallbacks ?? [],
        };
      }
    }
    throw errors.modelNotFound(model);
  }

  listModels(): Array<{ id: string; provider: string; upstreamModel: string }> {
    return [...this.friendly.values()].map((entry) => ({
      id: entry.requested,
      provider: entry.provider.settings.name,
      upstreamModel: entry.upstreamModel,
    }));
  }

  get configuredModelNames(): string[] {
    return Object.keys(this.config.models);
  }
}
