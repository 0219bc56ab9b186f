// Locating the Prometheus binaries (Debian package `prometheus`: /usr/bin/prometheus, promtool).
// Absent binaries skip a test locally but fail it in CI (process.env.CI set).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findBinary(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The binary's path, or the reason to skip. Throws in CI, where the binary must exist. */
export function requireBinary(name: string): { path: string } | { skip: string } {
  const path = findBinary(name);
  if (path) return { path };
  const message = `${name} not found: apt-get install -y --no-install-recommends prometheus`;
  if (process.env.CI) throw new Error(`${message} (required in CI)`);
  return { skip: message };
}
