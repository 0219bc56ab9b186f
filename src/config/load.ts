import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { configSecrets } from './secrets.js';
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

type Issue = z.ZodError['issues'][number];

const NUMBER_TEXT = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

function parentOf(tree: unknown, path: readonly PropertyKey[]): Record<PropertyKey, unknown> | undefined {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>) : undefined;
}

/** The text given where a number or boolean is expected, if it was text. */
function textAt(tree: unknown, issue: Issue): string | undefined {
  if (issue.code !== 'invalid_type' || (issue.expected !== 'number' && issue.expected !== 'boolean')) return undefined;
  const value = parentOf(tree, issue.path)?.[issue.path[issue.path.length - 1]];
  return typeof value === 'string' ? value : undefined;
}

/**
 * `${VAR}` always yields text, so `port: ${PORT}` must still become a number: text that reads as
 * the number or boolean a field expects is converted in place. Returns how many were converted.
 */
function coerceScalars(tree: unknown, issues: readonly Issue[]): number {
  let converted = 0;
  for (const issue of issues) {
    const text = textAt(tree, issue)?.trim();
    if (text === undefined || issue.code !== 'invalid_type') continue;
    let value: number | boolean | undefined;
    if (issue.expected === 'number' && NUMBER_TEXT.test(text)) value = Number(text);
    if (issue.expected === 'boolean' && (text === 'true' || text === 'false')) value = text === 'true';
    if (value === undefined) continue;
    (parentOf(tree, issue.path) as Record<PropertyKey, unknown>)[issue.path[issue.path.length - 1]] = value;
    converted++;
  }
  return converted;
}

function formatIssues(error: z.ZodError, tree: unknown): string {
  return error.issues
    .map((issue) => {
      const text = textAt(tree, issue);
      const expected = issue.code === 'invalid_type' ? issue.expected : '';
      const message =
        text === undefined
          ? issue.message
          : `expected a ${expected}, got ${JSON.stringify(text)}${text === '' ? ' (is its environment variable set?)' : ''}`;
      return `  - ${issue.path.length ? issue.path.join('.') : '(root)'}: ${message}`;
    })
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

  const tree = interpolateTree(raw, env);
  let result = configSchema.safeParse(tree);
  // A default filled in may reveal more fields to convert: a few rounds, each converting something.
  for (let round = 0; round < 4 && !result.success && coerceScalars(tree, result.error.issues) > 0; round++) {
    result = configSchema.safeParse(tree);
  }
  if (!result.success) throw new ConfigError(`Config ${path} is invalid:\n${formatIssues(result.error, tree)}`);
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
