import { stringify } from 'yaml';
import { ConfigError, loadConfigFile } from '../config/load.js';
import { createRedactor } from '../config/secrets.js';
import { resolveConfigPath } from '../config/paths.js';

// `toolgate check-config [file]`: load and validate a config exactly as `toolgate serve` would
// (env placeholders resolved, defaults filled in) and print the result with every secret masked.

export function checkConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): { ok: true; text: string; notes: string[] } | { ok: false; error: string } {
  const path = resolveConfigPath(file, env);
  try {
    const loaded = loadConfigFile(path, env);
    const redact = createRedactor(loaded.secrets);
    const notes = [`config ${path} is valid`];
    for (const [name, provider] of Object.entries(loaded.config.providers)) {
      if (provider.type !== 'simulator' && !provider.apiKey) {
        const envVar = loaded.keyEnvVars[name];
        notes.push(`provider ${name}: no API key${envVar ? ` (${envVar} is not set)` : ''}; its models answer 401 until one is set`);
      }
    }
    if (loaded.config.auth.keys.length === 0) notes.push('no gateway keys (auth.keys): toolgate will only listen on loopback unless HOST is set');
    return { ok: true, text: redact(stringify(loaded.config, jsonSafe)), notes };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, error: error.message };
    throw error;
  }
}

/** Sets and Maps (none today, but cheap to allow) print as arrays and mappings. */
function jsonSafe(_key: unknown, value: unknown): unknown {
  if (value instanceof Set) return [...value];
  if (value instanceof Map) return Object.fromEntries(value);
  return value;
}

export function checkConfigCommand(file: string | undefined): number {
  const result = checkConfig(file);
  if (!result.ok) {
    process.stderr.write(`toolgate check-config: ${result.error}\n`);
    return 1;
  }
  for (const note of result.notes) process.stderr.write(`${note}\n`);
  process.stdout.write(result.text);
  return 0;
}
