import type { GatewayConfig } from './schema.js';

/**
 * Every secret value the config holds: provider keys, gateway keys, the metrics key and the
 * credentials in URLs (provider baseUrl, Redis URL). Logs, relayed upstream errors and /metrics
 * are scrubbed of them.
 */
export function configSecrets(config: GatewayConfig): string[] {
  const out = Object.values(config.providers).map((provider) => provider.apiKey ?? '');
  out.push(...config.auth.keys.map((entry) => entry.key));
  if (config.auth.metricsKey) out.push(config.auth.metricsKey);
  for (const provider of Object.values(config.providers)) if (provider.baseUrl) out.push(...urlSecrets(provider.baseUrl));
  if (config.state.url) out.push(...urlSecrets(config.state.url));
  return [...new Set(out.filter((value) => value.length >= 4))];
}

/** The password of a URL as written and decoded, and `user:password@` (never shorter than 4). */
function urlSecrets(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return []; // the schema checks URLs; an unparsable one holds no password we can name
  }
  if (!url.password) return [];
  return [url.password, safeDecode(url.password), `${url.username}:${url.password}@`];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL fit for logs: a password becomes `***` (the user name stays, it helps debugging). */
export function maskUrl(text: string): string {
  try {
    const url = new URL(text);
    if (!url.password) return text;
    url.password = '***';
    return url.toString();
  } catch {
    // Not a URL we can parse: cut anything that looks like userinfo.
    return text.replace(/\/\/[^/@\s]*@/, '//***@');
  }
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
