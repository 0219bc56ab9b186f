import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Files the CLI finds next to its own code: the same relative paths from src/cli (tsx) and from
// dist/cli (the built and the installed package).

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);
const PACKAGED_CONFIG = fileURLToPath(new URL('../../config/gateway.yaml', import.meta.url));
const LOCAL_CONFIG = 'config/gateway.yaml';

export function packageVersion(): string {
  const parsed = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
}

/**
 * The config file to load: --config, else TOOLGATE_CONFIG, else ./config/gateway.yaml when the working
 * directory has one (a checkout), else the config shipped in the package (simulator when no key is set).
 */
export function resolveConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return flag;
  if (env.TOOLGATE_CONFIG) return env.TOOLGATE_CONFIG;
  return existsSync(LOCAL_CONFIG) ? LOCAL_CONFIG : PACKAGED_CONFIG;
}
