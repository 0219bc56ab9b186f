import { ConfigError } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import { maskUrl } from '../config/secrets.js';

// Without gateway keys the gateway lends its upstream keys to anyone who can reach it. It then
// listens on loopback only; a non-loopback address (server.host or HOST) without keys refuses to
// start, unless anonymous access is allowed explicitly: `auth.allowAnonymous: true` or the
// environment variable TOOLGATE_ALLOW_ANONYMOUS=true (the shipped config reads it into that field).

const LOOPBACK = /^(127(?:\.\d{1,3}){3}|localhost|::1|\[::1\])$/i;

export const ALLOW_ANONYMOUS_ENV = 'TOOLGATE_ALLOW_ANONYMOUS';

/** Anonymous access beyond loopback was allowed explicitly, by the config or the environment. */
export function anonymousAllowed(config: GatewayConfig, env: NodeJS.ProcessEnv): boolean {
  return config.auth.allowAnonymous || env[ALLOW_ANONYMOUS_ENV]?.trim().toLowerCase() === 'true';
}

/** The address to listen on; throws ConfigError for a non-loopback one without keys, unless allowed. */
export function listenHost(config: GatewayConfig, env: NodeJS.ProcessEnv, warn: (message: string, detail?: object) => void): string {
  const host = env.HOST || config.server.host;
  if (config.auth.keys.length > 0) return host;
  if (LOOPBACK.test(host)) {
    warn('no gateway keys configured (auth.keys): every client that can reach toolgate can spend its upstream keys');
    return host;
  }
  if (!anonymousAllowed(config, env)) {
    throw new ConfigError(
      `refusing to listen on ${host} without gateway keys: anyone who reaches the port could spend the provider keys. ` +
        `Configure auth.keys, listen on 127.0.0.1, or allow anonymous access explicitly (auth.allowAnonymous: true, or ${ALLOW_ANONYMOUS_ENV}=true).`,
    );
  }
  warn(`no gateway keys configured and anonymous access allowed (auth.allowAnonymous / ${ALLOW_ANONYMOUS_ENV}): every client that can reach ${host} can spend toolgate's upstream keys`, { host });
  return host;
}

/** What the startup log line says about providers and models; URL passwords masked. */
export function startupSummary(config: GatewayConfig): { providers: object[]; models: string[] } {
  return {
    providers: Object.entries(config.providers).map(([name, provider]) => ({
      name,
      type: provider.type,
      baseUrl: provider.baseUrl === undefined ? undefined : maskUrl(provider.baseUrl),
      keySet: provider.type === 'simulator' ? 'not needed' : Boolean(provider.apiKey),
    })),
    models: Object.entries(config.models).map(([name, model]) => `${name} → ${model.provider}/${model.model}`),
  };
}
