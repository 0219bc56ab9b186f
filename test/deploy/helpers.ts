import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';

// Small, dependency-free readers for the shipping files (no Docker engine or kubectl here, so
// everything is checked statically): a Dockerfile parser, a .dockerignore matcher with Docker's
// semantics, compose-style ${VAR} interpolation, and helpers over compose volumes and ports.

export const root = new URL('../../', import.meta.url).pathname;
export const read = (path: string): string => readFileSync(join(root, path), 'utf8');
export const exists = (path: string): boolean => existsSync(join(root, path));
export const readYaml = (path: string): any => parseYaml(read(path));

/** Every `${VAR…}` name in a text, in order of appearance, without duplicates. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))];
}

/** `${VAR…}` names in the values of a YAML document (comments do not count). */
export function yamlPlaceholders(text: string): string[] {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') for (const name of placeholders(value)) names.add(name);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(parseYaml(text));
  return [...names];
}

/** Compose-style interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, $$ → $. */
export function interpolate(text: string, env: Record<string, string | undefined> = {}): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g, (match, name?: string, op?: string, fallback?: string) => {
    if (match === '$$') return '$';
    const value = env[name!];
    if (op === ':-') return value ? value : (fallback ?? '');
    if (op === '-') return value !== undefined ? value : (fallback ?? '');
    return value ?? '';
  });
}

// ---- Dockerfile -------------------------------------------------------------------------------

export interface Instruction {
  keyword: string;
  /** The arguments as written (continuations joined). */
  args: string;
  /** Index of the stage this instruction belongs to (-1 before the first FROM). */
  stage: number;
}

export interface Stage {
  index: number;
  image: string;
  name?: string;
  platform?: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  instructions: Instruction[];
  stages: Stage[];
  /** ARGs declared before the first FROM, with their defaults. */
  globalArgs: Record<string, string>;
}

export function parseDockerfile(text: string): Dockerfile {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (current === '' && /^\s*#/.test(line)) continue; // comments and parser directives
    if (current !== '' && /^\s*#/.test(line)) continue; // comments inside a continuation
    if (/\\\s*$/.test(line)) {
      current += line.replace(/\\\s*$/, ' ');
      continue;
    }
    current += line;
    if (current.trim() !== '') logical.push(current.trim());
    current = '';
  }
  if (current.trim() !== '') logical.push(current.trim());

  const instructions: Instruction[] = [];
  const stages: Stage[] = [];
  const globalArgs: Record<string, string> = {};
  for (const line of logical) {
    const [, keyword, args = ''] = /^(\S+)\s*(.*)$/.exec(line)!;
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const words = args.split(/\s+/);
      const platform = words.find((w) => w.startsWith('--platform='))?.slice('--platform='.length);
      const rest = words.filter((w) => !w.startsWith('--'));
      const image = interpolate(rest[0], globalArgs);
      const name = rest[1]?.toUpperCase() === 'AS' ? rest[2] : undefined;
      stages.push({ index: stages.length, image, name, platform: platform && interpolate(platform, globalArgs), instructions: [] });
    }
    const instruction = { keyword: upper, args, stage: stages.length - 1 };
    instructions.push(instruction);
    if (upper === 'ARG' && stages.length === 0) {
      const [name, value = ''] = args.split('=');
      globalArgs[name.trim()] = value.trim().replace(/^"(.*)"$/, '$1');
    }
    if (stages.length > 0 && upper !== 'FROM') stages[stages.length - 1].instructions.push(instruction);
  }
  return { instructions, stages, globalArgs };
}

/** `["a", "b"]` → ['a', 'b']; a shell-form command → ['/bin/sh', '-c', command]. */
export function commandOf(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as string[];
  return ['/bin/sh', '-c', trimmed];
}

/** ENV lines of a stage → name/value pairs (`ENV A=1 B="x y"` and legacy `ENV A 1`). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { keyword, args } of stage.instructions) {
    if (keyword !== 'ENV') continue;
    if (!args.includes('=')) {
      const [name, ...value] = args.split(/\s+/);
      env[name] = value.join(' ');
      continue;
    }
    for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) env[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
  }
  return env;
}

export interface Copy {
  from?: string;
  sources: string[];
  dest: string;
}

export function copiesOf(stage: Stage): Copy[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')
    .map((i) => {
      const words = i.args.trim().startsWith('[') ? [] : i.args.split(/\s+/);
      const parts = i.args.trim().startsWith('[') ? (JSON.parse(i.args) as string[]) : words.filter((w) => !w.startsWith('--'));
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      return { from, sources: parts.slice(0, -1), dest: parts[parts.length - 1] };
    });
}

// ---- .dockerignore ----------------------------------------------------------------------------

interface IgnoreRule {
  negate: boolean;
  regex: RegExp;
}

function globToRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        // `**` any number of directories (including none)
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else {
          out += '.*';
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else {
      out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

/**
 * Docker's .dockerignore rules: patterns are cleaned paths relative to the context root, `!`
 * re-includes, the last matching rule wins, and a rule matching a parent directory matches
 * everything below it.
 */
export function dockerignore(text: string): (path: string) => boolean {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1).trim();
    line = posix.normalize(line).replace(/^\/+/, '').replace(/\/+$/, '');
    if (line === '' || line === '.') continue;
    rules.push({ negate, regex: globToRegex(line) });
  }
  return (path: string): boolean => {
    const clean = posix.normalize(path).replace(/^\.?\/+/, '').replace(/\/+$/, '');
    const prefixes: string[] = [];
    const parts = clean.split('/');
    for (let i = 1; i <= parts.length; i++) prefixes.push(parts.slice(0, i).join('/'));
    let ignored = false;
    for (const rule of rules) {
      if (prefixes.some((p) => rule.regex.test(p))) ignored = !rule.negate;
    }
    return ignored;
  };
}

/** Every file under a repo path (itself when it is a file), as repo-relative posix paths. */
export function filesUnder(path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [path.replace(/^\.\//, '')];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(full);
  return out;
}

// ---- compose ----------------------------------------------------------------------------------

export interface Mount {
  type: 'bind' | 'volume';
  source: string;
  target: string;
  readOnly: boolean;
}

/** A service's volumes, short or long syntax. Bind sources are repo-relative (`./x` → `x`). */
export function mountsOf(service: any): Mount[] {
  return (service.volumes ?? []).map((v: any): Mount => {
    if (typeof v === 'string') {
      const [source, target, mode = ''] = v.split(':');
      const bind = source.startsWith('.') || source.startsWith('/');
      return { type: bind ? 'bind' : 'volume', source: bind ? posix.normalize(source) : source, target, readOnly: mode.split(',').includes('ro') };
    }
    return { type: v.type === 'bind' ? 'bind' : 'volume', source: v.type === 'bind' ? posix.normalize(v.source) : v.source, target: v.target, readOnly: v.read_only === true };
  });
}

/** The repo path a container path comes from through a service's bind mounts, or undefined. */
export function hostPathOf(service: any, containerPath: string): string | undefined {
  const binds = mountsOf(service)
    .filter((m) => m.type === 'bind')
    .sort((a, b) => b.target.length - a.target.length);
  for (const m of binds) {
    if (containerPath === m.target) return m.source;
    if (containerPath.startsWith(`${m.target}/`)) return posix.join(m.source, containerPath.slice(m.target.length + 1));
  }
  return undefined;
}

/** Container ports a service publishes (`[ip:]host:container[/proto]` or long syntax). */
export function containerPortsOf(service: any): number[] {
  return (service.ports ?? []).map((p: any) => {
    if (typeof p === 'object') return Number(p.target);
    const text = String(p).replace(/\/(tcp|udp)$/, '');
    return Number(text.slice(text.lastIndexOf(':') + 1));
  });
}

/** A service's `environment` as a map (list or map syntax). */
export function environmentOf(service: any): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((e: string) => [e.split('=')[0], e.includes('=') ? e.slice(e.indexOf('=') + 1) : '']));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** The keys listed in a .env-style file (`KEY=value`, comments skipped). */
export function envFileKeys(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.replace(/^export\s+/, '').split('=')[0].trim());
}
