import type { GatewayConfig } from './config/schema.js';

/**
 * Every secret value the config holds: provider keys, gateway keys, the metrics key and a
 * password in the Redis URL. Logs, relayed upstream errors and /metrics are scrubbed of them.
 */
export function configSecrets(config: GatewayConfig): string[] {
  const out = Object.values(config.providers).map((provider) => provider.apiKey ?? '');
  out.push(...config.auth.keys.map((entry) => entry.key));
  if (config.auth.metricsKey) out.push(config.auth.metricsKey);
  if (config.state.url) {
    try {
      const url = new URL(config.state.url);
      if (url.password) out.push(decodeURIComponent(url.password), url.password);
    } catch {
      // the schema already checked the scheme; an unparsable URL holds no password we can name
    }
  }
  return [...new Set(out.filter((value) => value.length >= 4))];
}

/**
 * Replaces every secret in a text with [REDACTED]. Upstream error messages are relayed to
 * clients, and some upstreams quote the key they were sent ("Incorrect API key provided: …").
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const active = [...new Set(secrets.filter((secret) => secret.length >= 4))].sort((a, b) => b.length - a.length);
  if (active.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of active) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
    return out;
  };
}
