// Validate values against component schemas of OpenAI's published OpenAPI spec
// (test/vendor/openai-openapi.yaml: OpenAPI 3.1, info.version 2.3.0, openai/openai-openapi f85dbe2,
// trimmed to its component schemas; see test/vendor/SOURCES.md).
//
// The YAML is 2 MB; parsing all of it with `yaml` takes ~1.5 s. So the `components.schemas` section
// is split textually into one chunk per schema, and only the schemas reachable from a requested name
// are parsed (CreateChatCompletionResponse: 14 schemas, ~0.1 s; Response: ~240, ~0.3 s), turned into
// JSON Schema 2020-12 and compiled with ajv. Parsed chunks and compiled validators are cached for the
// life of the process.
//
// OpenAPI → JSON Schema fixes applied to every schema:
// - `$ref: '#/components/schemas/X'` → an absolute id per component, so each can be added on its own;
// - `nullable: true` (OpenAPI 3.0 leftovers) → `anyOf: [schema, {type: 'null'}]`;
// - boolean `exclusiveMinimum/Maximum` (3.0 style) → the 2020-12 numeric form;
// - `$recursiveRef: '#'` (2019-09) → a `$ref` to the enclosing component;
// - `oneOf`/`anyOf` beside a `discriminator` → one `if {type: v} then <branch>` per branch, so a value
//   is checked against the branch its discriminator names and the errors are that branch's only
//   (a plain `oneOf` fails valid values where the spec's loose branches overlap, and an `anyOf` over
//   ResponseStreamEvent's 50 branches reports ~200 errors for one bad field). When a branch's value
//   cannot be read from the spec, the union falls back to `anyOf`;
// - `x-*`, `example` etc. are ignored (`strict: false`); unknown formats (`unixtime`, `binary`,
//   `double`, ...) accept anything.
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

const SPEC_URL = new URL('../vendor/openai-openapi.yaml', import.meta.url);
const ID_BASE = 'https://toolgate.test/openai/schemas/';
const REF_RE = /\$ref: "#\/components\/schemas\/([^"]+)"/g;

// ajv and ajv-formats are CommonJS: under NodeNext their default export is the module object.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

type Json = Record<string, unknown>;

let chunks: Map<string, string> | null = null;
const parsed = new Map<string, unknown>();
const validators = new Map<string, ValidateFunction>();
let ajv: InstanceType<typeof Ajv2020> | null = null;

/** Text of each component schema, keyed by name, without parsing the YAML. */
function loadChunks(): Map<string, string> {
  if (chunks) return chunks;
  const text = readFileSync(SPEC_URL, 'utf8');
  const components = text.indexOf('\ncomponents:\n');
  const schemasAt = text.indexOf('\n  schemas:\n', components);
  if (components < 0 || schemasAt < 0) throw new Error(`openapi: no components.schemas in ${SPEC_URL.pathname}`);
  const start = schemasAt + '\n  schemas:\n'.length;
  const endRe = /\n {0,2}[A-Za-z]/g; // next key at the components level or the top level
  endRe.lastIndex = start;
  const end = endRe.exec(text)?.index ?? text.length;
  const section = text.slice(start, end + 1);
  const keyRe = /^ {4}([A-Za-z0-9_.-]+):\s*$/gm;
  const found = new Map<string, string>();
  let prev: { name: string; at: number } | null = null;
  for (let m = keyRe.exec(section); m; m = keyRe.exec(section)) {
    if (prev) found.set(prev.name, section.slice(prev.at, m.index));
    prev = { name: m[1], at: m.index };
  }
  if (prev) found.set(prev.name, section.slice(prev.at));
  chunks = found;
  return found;
}

/** The discriminator value(s) a union branch stands for (`properties[prop]` const or enum), read from the
 *  parsed spec; null when the branch does not say. */
function discriminatorValues(branch: unknown, prop: string): { values: unknown[]; required: boolean } | null {
  let s = branch as Json | undefined;
  if (s && typeof s.$ref === 'string') s = parsed.get(s.$ref.split('/').pop()!) as Json | undefined;
  const p = (s?.properties as Json | undefined)?.[prop] as Json | undefined;
  const required = Array.isArray(s?.required) && s.required.includes(prop);
  if (p && 'const' in p) return { values: [p.const], required };
  if (p && Array.isArray(p.enum) && p.enum.length > 0) return { values: p.enum, required };
  return null;
}

/** A discriminated union as `if <prop> is v then <the branches for v>` clauses: only the named branch's
 *  errors are reported. Branches that share a value are alternatives; branches where the property is
 *  optional also answer for values that lack it (e.g. EasyInputMessage without `type`). */
function dispatchUnion(branches: unknown[], found: Array<{ values: unknown[]; required: boolean }>, prop: string): Json {
  const one = (ix: number[]): unknown => (ix.length === 1 ? branches[ix[0]] : { anyOf: ix.map((i) => branches[i]) });
  const allValues = [...new Set(found.flatMap((f) => f.values))];
  const clauses: Json[] = allValues.map((v) => ({
    if: { properties: { [prop]: { const: v } }, required: [prop] },
    then: one(found.flatMap((f, i) => (f.values.includes(v) ? [i] : []))),
  }));
  const optional = found.flatMap((f, i) => (f.required ? [] : [i]));
  if (optional.length > 0) clauses.push({ if: { not: { required: [prop] } }, then: one(optional) });
  return { type: 'object', ...(optional.length === 0 ? { required: [prop] } : {}), properties: { [prop]: { enum: allValues } }, allOf: clauses };
}

/** OpenAPI 3.x-isms → JSON Schema 2020-12 (see header). */
function convert(node: unknown, owner: string): unknown {
  if (Array.isArray(node)) return node.map((n) => convert(n, owner));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = convert(v, owner);
  if (typeof out.$ref === 'string' && out.$ref.startsWith('#/components/schemas/')) {
    out.$ref = ID_BASE + out.$ref.slice('#/components/schemas/'.length);
  }
  if ('$recursiveRef' in out) {
    delete out.$recursiveRef;
    out.$ref = ID_BASE + owner;
  }
  for (const [ex, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[ex] !== 'boolean') continue;
    if (out[ex] === true && typeof out[bound] === 'number') {
      out[ex] = out[bound];
      delete out[bound];
    } else delete out[ex];
  }
  const raw = node as Json;
  const union = Array.isArray(raw.oneOf) ? 'oneOf' : Array.isArray(raw.anyOf) ? 'anyOf' : null;
  const prop = (raw.discriminator as { propertyName?: unknown } | undefined)?.propertyName;
  if (union && typeof prop === 'string') {
    const branches = out[union] as unknown[];
    delete out[union];
    delete out.discriminator;
    const found = (raw[union] as unknown[]).map((b) => discriminatorValues(b, prop));
    if (found.some((f) => f === null)) out.anyOf = branches;
    else out.allOf = [...((out.allOf as unknown[]) ?? []), dispatchUnion(branches, found as Array<{ values: unknown[]; required: boolean }>, prop)];
  }
  if (out.nullable === true) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  delete out.nullable;
  return out;
}

function getAjv(): InstanceType<typeof Ajv2020> {
  if (ajv) return ajv;
  const a = new Ajv2020({ strict: false, allErrors: true, logger: false, validateSchema: false, code: { optimize: false } });
  addFormats(a);
  for (const f of ['unixtime', 'binary', 'double', 'float', 'int32', 'int64', 'byte', 'password']) a.addFormat(f, true);
  ajv = a;
  return a;
}

/** Parse and register `name` and every schema it reaches. */
function register(name: string): void {
  const all = loadChunks();
  const a = getAjv();
  const queue = [name];
  const added: string[] = [];
  while (queue.length > 0) {
    const n = queue.pop()!;
    if (parsed.has(n)) continue;
    const chunk = all.get(n);
    if (chunk === undefined) throw new Error(`openapi: no component schema named ${n}`);
    parsed.set(n, (YAML.parse(chunk) as Json)[n]);
    added.push(n);
    for (const m of chunk.matchAll(REF_RE)) queue.push(m[1]);
  }
  // Converted once every reachable schema is parsed: discriminated unions read their branches.
  for (const n of added) a.addSchema({ ...(convert(parsed.get(n), n) as Json), $id: ID_BASE + n });
}

function validatorFor(name: string): ValidateFunction {
  let v = validators.get(name);
  if (v) return v;
  register(name);
  const found = getAjv().getSchema(ID_BASE + name);
  if (!found) throw new Error(`openapi: could not compile ${name}`);
  v = found;
  validators.set(name, v);
  return v;
}

/** Errors of `value` against the spec's component schema `name` (empty when valid). */
export function validateSchema(name: string, value: unknown): string[] {
  const v = validatorFor(name);
  if (v(value)) return [];
  const errors = v.errors ?? [];
  const useful = errors.filter((e) => e.keyword !== 'if'); // "must match "then" schema" repeats the branch's own errors
  return (useful.length > 0 ? useful : errors).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
}

/** The spec's component schema `name` as written (parsed YAML, OpenAPI form), for tests that read the spec. */
export function specSchema(name: string): unknown {
  register(name);
  return parsed.get(name);
}

/** How much work loading took so far: component schemas parsed and validators compiled (both cached). */
export function openapiStats(): { parsed: number; compiled: number } {
  return { parsed: parsed.size, compiled: validators.size };
}

/** Names of every component schema in the spec. */
export function schemaNames(): string[] {
  return [...loadChunks().keys()];
}

/**
 * A response object (or an event carrying one) without the `null`s OpenAI itself sends for `user` and
 * `usage` (before usage is known) and the Open Responses spec requires, but this spec's `Response`
 * schema does not allow: validate what is left against it.
 */
export function withoutOpenAINulls<T>(value: T): T {
  const copy = structuredClone(value) as Json;
  for (const target of [copy, copy?.response as Json | undefined]) {
    if (!target || typeof target !== 'object') continue;
    for (const key of ['user', 'usage']) if (target[key] === null) delete target[key];
  }
  return copy as T;
}
