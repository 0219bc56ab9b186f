import type { GatewayConfig } from '../config/schema.js';
import { errors } from '../errors.js';
import type { ChatChunk, ChatCompletion } from '../api/chat-types.js';
import { OpenAICompatibleAdapter } from './openai-compatible.js';
import { SimulatorAdapter } from './simulator.js';
import type { ProviderAdapter, ProviderCapabilities, ProviderSettings } from './types.js';

/** Builds one adapter per configured provider. Adapters own their connection pools. */
export function createProviders(config: GatewayConfig, keyEnvVars: Record<string, string>): Map<string, ProviderAdapter> {
  const providers = new Map<string, ProviderAdapter>();
  for (const [name, provider] of Object.entries(config.providers)) {
    const settings: ProviderSettings = {
      name,
      type: provider.type,
      baseUrl: provider.baseUrl ?? 'http://simulator.invalid',
      apiKey: provider.apiKey ? provider.apiKey : undefined,
      apiKeyEnv: keyEnvVars[name],
      timeoutMs: provider.timeoutMs,
      streamIdleTimeoutMs: provider.streamIdleTimeoutMs,
      headers: provider.headers,
    };
    providers.set(name, createAdapter(settings));
  }
  return providers;
}

function createAdapter(settings: ProviderSettings): ProviderAdapter {
  switch (settings.type) {
    case 'openai':
    case 'openai-compatible':
      return new OpenAICompatibleAdapter(settings);
    case 'simulator':
      return new SimulatorAdapter(settings);
    case 'gemini':
      return new NotImplementedAdapter(settings, 'The Gemini adapter is not available in this build yet.');
  }
}

/** Whether a provider needs a key before any call (the simulator does not). */
export function requiresKey(settings: ProviderSettings): boolean {
  return settings.type !== 'simulator';
}

class NotImplementedAdapter implements ProviderAdapter {
  constructor(
    readonly settings: ProviderSettings,
    private readonly reason: string,
  ) {}
  capabilities(): ProviderCapabilities {
    return { nativeTools: true, toolNameRule: { pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, maxLength: 64 } };
  }
  async complete(): Promise<ChatCompletion> {
    throw errors.notImplemented(this.reason);
  }
  async stream(): Promise<AsyncIterable<ChatChunk>> {
    throw errors.notImplemented(this.reason);
  }
}
