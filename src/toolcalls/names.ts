import type { NameMatchKind, NameResolution } from './types.js';

// Maps the name a model called to a declared tool name, only where it is the same name. In order:
//   1. exact — the declared name itself;
//   2. alias — a configured alias (called → declared);
//   3. normalized — equal after normalization: namespace and provider prefixes (`functions.`,
//      `default_api:`, `default_api.`, `tools.`, `mcp__<server>__`), `tool_` / `_tool` affixes, case
//      and camelCase, `-` / `.` / `:` / `/` / spaces vs `_`, or the same letters without separators
//      (the real incident: declared `search_procedure`, called `tool_search_procedure`).
// Names the upstream got in toolgate's own encoding are decoded before (name-encoding.ts).
// Anything else is not a declared tool (null): reported, never guessed. There is no similarity
// matching: for tools that act, `deactivate_account` → `activate_account` is worse than no answer.
// A normalized form shared by two declared names is ambiguous and matches neither.
//
// A prefix that names an MCP server or a namespace (`mcp__<server>__`, `<namespace>.`,
// `<server>/`, `<server>:`) is part of the name: a called name that names one matches only a
// declared name of that same server or namespace (`mcp__staging__drop_table` is never
// `mcp__prod__drop_table`, nor a bare `drop_table`). A bare called name may still find the one
// declared name it is the tool part of. The wrappers models add themselves (`functions.`,
// `default_api:`, `tools.`…) name no server and are only stripped.

const PREFIXES = ['functions.', 'function.', 'functions:', 'default_api:', 'default_api.', 'tools.', 'tool.', 'tools:', 'api.'];
const CACHE_LIMIT = 512;
/** MCP clients (Claude Code and others) prefix a server's tools as `mcp__<server>__<tool>`. */
const MCP_PREFIX = 'mcp__';

export type NameResolverFunction = ((calledName: string) => NameResolution | null) & {
  /** The declared names this resolver was built for. */
  readonly declared: readonly string[];
};

export function createNameResolver(declared: readonly string[], aliases: Readonly<Record<string, string>> = {}): NameResolverFunction {
  const declaredSet = new Set(declared);
  const aliasMap = new Map<string, string>();
  for (const [called, target] of Object.entries(aliases)) if (declaredSet.has(target)) aliasMap.set(called, target);

  // The server or namespace each declared name belongs to ('' for none).
  const qualifiers = new Map<string, string>();
  for (const name of declaredSet) qualifiers.set(name, qualifierOf(name));
  // Normalized key → declared names; a key shared by two declared names is ambiguous (unused).
  const byKey = new Map<string, string[]>();
  for (const name of declaredSet) {
    const key = normalizeToolName(name);
    byKey.set(key, [...(byKey.get(key) ?? []), name]);
  }
  // The same without separators: `getweather` vs `get_weather` is still a normalization.
  const byLetters = new Map<string, string[]>();
  for (const [key, names] of byKey) {
    const letters = key.replace(/_/g, '');
    byLetters.set(letters, [...(byLetters.get(letters) ?? []), ...names]);
  }
  const cache = new Map<string, NameResolution | null>();

  const resolve = (calledName: string): NameResolution | null => {
    if (declaredSet.has(calledName)) return { name: calledName, how: 'exact' };
    const cached = cache.get(calledName);
    if (cached !== undefined) return cached;
    const found = lookup(calledName);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(calledName, found);
    return found;
  };

  function lookup(calledName: string): NameResolution | null {
    const aliased = aliasMap.get(calledName) ?? aliasMap.get(calledName.trim());
    if (aliased !== undefined) return result(aliased, 'alias');
    const key = normalizeToolName(calledName);
    if (key === '') return null;
    const qualifier = qualifierOf(calledName);
    // Never across a server or namespace the called name names itself.
    const fits = (names: readonly string[]): readonly string[] => (qualifier === '' ? names : names.filter((name) => qualifiers.get(name) === qualifier));
    const sameKey = byKey.get(key);
    if (sameKey) return one(fits(sameKey));
    const sameLetters = byLetters.get(key.replace(/_/g, ''));
    if (sameLetters) return one(fits(sameLetters));
    return null;
  }

  return Object.assign(resolve, { declared: [...declaredSet] });
}

function result(name: string, how: NameMatchKind): NameResolution {
  return { name, how };
}

/** The one candidate, as a normalized match; none or several: no match. */
function one(names: readonly string[]): NameResolution | null {
  return names.length === 1 ? result(names[0], 'normalized') : null;
}

/** Separators after which the rest of a name is a tool of a namespace or server. */
const QUALIFIER_SEPARATORS = ['.', '/', ':'];

/**
 * The MCP server or namespace a name names, in comparison form ('' for none): `mcp__prod__x` and
 * `prod/x` and `Prod.x` → `prod`; `functions.x`, `default_api:x` → '' (a model's wrapper).
 */
export function qualifierOf(name: string): string {
  const key = withoutWrappers(name.trim().toLowerCase());
  let qualifier = '';
  const mcp = mcpParts(key);
  if (mcp) qualifier = mcp.server;
  else {
    let cut = -1;
    for (const separator of QUALIFIER_SEPARATORS) cut = Math.max(cut, key.lastIndexOf(separator));
    if (cut > 0 && cut < key.length - 1) qualifier = key.slice(0, cut);
  }
  return qualifier
    .replace(/[\s\-.:/]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
}

/** `mcp__<server>__<tool>` split in its server and tool (lower case in, as is out); undefined for any other name. */
function mcpParts(key: string): { server: string; tool: string } | undefined {
  if (!key.startsWith(MCP_PREFIX)) return undefined;
  const end = key.indexOf('__', MCP_PREFIX.length);
  return end > MCP_PREFIX.length && end + 2 < key.length ? { server: key.slice(MCP_PREFIX.length, end), tool: key.slice(end + 2) } : undefined;
}

/** `key` (lower case) without the wrappers models put in front of names (`functions.`, `default_api:`…). */
function withoutWrappers(key: string): string {
  let out = key;
  for (let stripped = true; stripped; ) {
    stripped = false;
    for (const prefix of PREFIXES) {
      if (out.startsWith(prefix) && out.length > prefix.length) {
        out = out.slice(prefix.length);
        stripped = true;
      }
    }
  }
  return out;
}

/** The comparison form of a tool name (see the header comment). */
export function normalizeToolName(name: string): string {
  let key = name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
  // A model's wrapper may come before the server prefix too (`functions.mcp__prod__drop_table`).
  key = withoutWrappers(key);
  key = withoutWrappers(mcpParts(key)?.tool ?? key);
  key = key
    .replace(/[\s\-.:/]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (key.startsWith('tool_') && key.length > 5) key = key.slice(5);
  if (key.endsWith('_tool') && key.length > 5) key = key.slice(0, -5);
  return key;
}
