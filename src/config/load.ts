import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { configSecrets } from '../secrets.js';
import { configSchema, type GatewayConfig } from './schema.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE_PLACEHOLDER = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}$/;

/** `${VAR}` → env value or ""; `${VAR:-default}` → env value when set and non-empty, else default. */
export function interpolate(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    return fallback ?? '';
  });
}

function interpolateTree(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateTree(item, env));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = interpolateTree(item, env);
    return out;
  }
  return value;
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `  - ${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('\n');
}

export interface LoadedConfig {
  config: GatewayConfig;
  /** provider name → the env var its apiKey comes from (named in "key missing" errors). */
  keyEnvVars: Record<string, string>;
  /** Every secret value in the config (provider keys, gateway keys…), for scrubbing. */
  secrets: string[];
  path: string;
}

export function parseConfig(text: string, env: NodeJS.ProcessEnv, path = '<inline>'): LoadedConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`Config ${path} is not valid YAML: ${(error as Error).message}`);
  }
  if (!raw || typeof raw !== 'object') throw new ConfigError(`Config ${path} must be a YAML mapping`);

  const keyEnvVars: Record<string, string> = {};
  const rawProviders = (raw as { providers?: Record<string, { apiKey?: unknown }> }).providers ?? {};
  for (const [name, provider] of Object.entries(rawProviders)) {
    const match = typeof provider?.apiKey === 'string' ? WHOLE_PLACEHOLDER.exec(provider.apiKey.trim()) : null;
    if (match) keyEnvVars[name] = match[1];
  }

  const result = configSchema.safeParse(interpolateTree(raw, env));
  if (!result.success) throw new ConfigError(`Config ${path} is invalid:\n${formatIssues(result.error)}`);
  const config = result.data;
  return { config, keyEnvVars, secrets: configSecrets(config), path };
}

export function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  return parseConfig(text, env, path);
}
