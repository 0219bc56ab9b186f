import type { GatewayConfig } from '../config/schema.js';
import { createGeminiAdapter } from './gemini/index.js';
import { OpenAICompatibleAdapter } from './openai-compatible.js';
import { SimulatorAdapter } from './simulator.js';
import type { ProviderAdapter, ProviderSettings } from './types.js';

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
      maxConnections: provider.maxConnections,
      maxResponseBytes: provider.maxResponseBytes,
      maxEventBytes: provider.maxEventBytes,
      maxStreamBytes: provider.maxStreamBytes,
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
      return createGeminiAdapter(settings);
  }
}

/** Whether a provider needs a key before any call (the simulator does not). */
export function requiresKey(settings: ProviderSettings): boolean {
  return settings.type !== 'simulator';
}
