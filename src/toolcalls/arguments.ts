import type { ErrorObject } from 'ajv';
import { isRecord } from '../is-record.js';
import { bracketDepth, type RepairBudget, repairJsonBounded, valueDepth } from '../util/bounded-json.js';
import { validatorFor } from './schema-validators.js';
import { findJsonEnd } from './text/json-scan.js';

export { type CompiledSchema, MAX_SCHEMA_CHARS, validatorFor } from './schema-validators.js';

// Tool-call arguments always leave the gateway as the text of a JSON object. What models send
// ranges from objects to double-encoded strings to almost-JSON; this module turns it into the
// best faithful object, checks it against the tool's `parameters` schema and reports (never throws).
//
// Unrecoverable text (not JSON, not repairable, not an object) is WRAPPED rather than dropped:
// into the tool's single required string parameter when it has exactly one, otherwise as
// `{"raw_arguments": "<the text>"}` (RAW_ARGUMENTS_KEY, as the history repair wraps) — which then
// fails validation and is counted as invalid.
//
// Bounded cost (model output is untrusted): JSON repair is bounded (util/bounded-json.ts) and
// paid from the budget of the request's tenant, which every caller passes in;
// schema regexes run in a linear-time engine (linear-regexp.ts); arguments over
// MAX_VALIDATED_CHARS or nested deeper than MAX_ARGUMENT_DEPTH, and schemas over
// MAX_SCHEMA_CHARS (schema-validators.ts, which keeps the compiled validators), are not
// schema-checked. What was not checked is listed in `unchecked`.

/** Arguments longer than this (characters of JSON) are passed on without a schema check. */
export const MAX_VALIDATED_CHARS = 262_144;
/** Arguments nested deeper than this are kept as text (wrapped), never walked or re-serialized. */
export const MAX_ARGUMENT_DEPTH = 256;

/** The one key unreadable arguments are kept under, in answers and in repaired histories alike. */
export const RAW_ARGUMENTS_KEY = 'raw_arguments';

export interface ArgumentsResult {
  /** The text of a JSON object. */
  arguments: string;
  /** The input was not valid JSON (or was double-encoded) and was repaired. */
  repaired: boolean;
  /** Nothing usable as an object: the text was wrapped (see above). */
  wrapped: boolean;
  /** Values were converted to the schema's type ("5" → 5, "true" → true). */
  coerced: boolean;
  /** Schema violations left after coercion, like "/city must be string"; empty when valid. */
  errors: string[];
  /** What the schema check left out and why (a pattern RE2 cannot run, a size limit); empty when all was checked. */
  unchecked: string[];
}

type JsonRecord = Record<string, unknown>;

/** Arguments as JSON object text, without a schema: object → text, broken JSON repaired, empty → "{}". */
export function toArgumentsJson(raw: unknown, budget: RepairBudget): string {
  return fixArguments(raw, undefined, budget).arguments;
}

/** Normalizes arguments and validates them against `schema` (a tool's `parameters`) when given. */
export function fixArguments(raw: unknown, schema: unknown, budget: RepairBudget): ArgumentsResult {
  const decoded = decodeArguments(raw, schema, budget);
  const result: ArgumentsResult = { arguments: '', repaired: decoded.repaired, wrapped: decoded.wrapped, coerced: false, errors: [], unchecked: [] };
  let value = decoded.value;
  const compiled = isSchemaObject(schema) ? validatorFor(schema, budget) : undefined;
  const size = decoded.text?.length ?? (compiled ? (JSON.stringify(value)?.length ?? 0) : 0);
  let validate = compiled?.validate;
  if (compiled) result.unchecked.push(...compiled.unchecked);
  if (validate && size > MAX_VALIDATED_CHARS) {
    result.unchecked.push(`arguments of ${size} characters are over the schema-check limit of ${MAX_VALIDATED_CHARS}`);
    validate = undefined;
  }
  if (validate && !validate(value)) {
    const coerced = coerceToSchemaTypes(value, validate.errors ?? []);
    if (coerced !== value && validate(coerced)) {
      value = coerced;
      result.coerced = true;
    } else {
      if (coerced !== value) {
        value = coerced;
        result.coerced = true;
        validate(value);
      }
      result.errors = (validate.errors ?? []).map(describeError);
    }
  }
  const untouched = decoded.text !== undefined && !result.coerced;
  result.arguments = untouched ? (decoded.text as string) : JSON.stringify(value);
  return result;
}

interface Decoded {
  value: JsonRecord;
  /** The input text, when it already was exactly this object's JSON (kept byte for byte). */
  text?: string;
  repaired: boolean;
  wrapped: boolean;
}

function decodeArguments(raw: unknown, schema: unknown, budget: RepairBudget): Decoded {
  if (raw === undefined || raw === null) return { value: {}, repaired: false, wrapped: false };
  if (isRecord(raw)) {
    // An object from a text parser: too deep to walk or serialize safely, so not kept as an object.
    if (valueDepth(raw, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH) return wrap(`(arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels)`, schema);
    return { value: raw, repaired: false, wrapped: false };
  }
  if (typeof raw !== 'string') return wrap(raw, schema);
  const text = raw.trim();
  if (text === '') return { value: {}, repaired: false, wrapped: false };
  if (bracketDepth(text, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH) return wrap(raw, schema);
  const strict = parseOrUndefined(text);
  if (isRecord(strict)) return { value: strict, text: raw, repaired: false, wrapped: false };
  if (typeof strict === 'string') {
    // Double-encoded: "{\"city\":\"SF\"}".
    const inner = parseOrUndefined(strict.trim()) ?? repairOrUndefined(strict, budget);
    if (isRecord(inner) && valueDepth(inner, MAX_ARGUMENT_DEPTH) <= MAX_ARGUMENT_DEPTH) return { value: inner, repaired: true, wrapped: false };
  }
  if (strict === null) return { value: {}, repaired: true, wrapped: false };
  if (strict === undefined) {
    const repaired = repairOrUndefined(text, budget);
    if (isRecord(repaired)) return { value: repaired, repaired: true, wrapped: false };
  }
  return wrap(strict === undefined ? raw : strict, schema);
}

function wrap(value: unknown, schema: unknown): Decoded {
  const key = singleRequiredStringProperty(schema);
  if (key !== undefined) return { value: { [key]: typeof value === 'string' ? value : JSON.stringify(value) }, repaired: false, wrapped: true };
  return { value: { [RAW_ARGUMENTS_KEY]: value }, repaired: false, wrapped: true };
}

/** The name of the schema's only required parameter when it is a string; used to place free text. */
export function singleRequiredStringProperty(schema: unknown): string | undefined {
  if (!isRecord(schema)) return undefined;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const candidates = required.length > 0 ? required : Object.keys(properties);
  if (candidates.length !== 1) return undefined;
  const property = properties[candidates[0]];
  const type = isRecord(property) ? property.type : undefined;
  return type === 'string' || (Array.isArray(type) && type.includes('string')) ? candidates[0] : undefined;
}

/**
 * Arguments text (trimmed, not empty) read as the object it stands for: strict JSON, a
 * double-encoded object, or — with a budget — what bounded jsonrepair mends (`repaired`). Never text
 * cut off before its end ('cut off'): jsonrepair would complete it, a guess at what was meant.
 * Undefined when it is no object. The contract and the Messages translation read arguments so.
 */
export function readArgumentsObject(text: string, budget?: RepairBudget): { value: JsonRecord; repaired: boolean } | 'cut off' | undefined {
  const strict = parseOrUndefined(text);
  if (isRecord(strict)) return { value: strict, repaired: false };
  // Double-encoded: "{\"city\":\"SF\"}" is the same object, written twice.
  const inner = typeof strict === 'string' ? strict.trim() : undefined;
  const candidate = inner ?? text;
  const value = inner !== undefined ? parseOrUndefined(inner) : undefined;
  if (isRecord(value)) return { value, repaired: true };
  if (strict !== undefined && inner === undefined) return undefined;
  if (budget === undefined) return undefined;
  if (candidate.startsWith('{') && findJsonEnd(candidate, 0) === 'incomplete') return 'cut off';
  const repaired = repairOrUndefined(candidate, budget);
  return isRecord(repaired) ? { value: repaired, repaired: true } : undefined;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function repairOrUndefined(text: string, budget: RepairBudget): unknown {
  const outcome = repairJsonBounded(text, budget);
  return 'repaired' in outcome ? parseOrUndefined(outcome.repaired) : undefined;
}

/** An object with at least one own enumerable key (Object.keys(schema).length > 0, without the array). */
function isSchemaObject(schema: unknown): schema is JsonRecord {
  if (!isRecord(schema)) return false;
  for (const key in schema) if (Object.hasOwn(schema, key)) return true;
  return false;
}

// ---- validation -------------------------------------------------------------------------------

function describeError(error: ErrorObject): string {
  return `${error.instancePath || '/'} ${error.message ?? error.keyword}`;
}

// ---- coercion ---------------------------------------------------------------------------------

/** Converts values at type errors when the conversion is unambiguous; returns a copy when anything changed. */
function coerceToSchemaTypes(value: JsonRecord, errors: ErrorObject[]): JsonRecord {
  let copy: JsonRecord | undefined;
  for (const error of errors) {
    if (error.keyword !== 'type') continue;
    const wanted = ([] as unknown[]).concat(error.params.type).filter((t): t is string => typeof t === 'string');
    const path = error.instancePath.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (path.length === 0) continue;
    const current = readPath(copy ?? value, path);
    const converted = convertValue(current, wanted);
    if (converted === NO_CONVERSION) continue;
    copy ??= structuredClone(value);
    writePath(copy, path, converted);
  }
  return copy ?? value;
}

const NO_CONVERSION = Symbol('no conversion');
const INTEGER = /^-?\d+$/;
// One way to match each digit (no `\d+\.?\d*`, which backtracks quadratically on long digit runs).
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function convertValue(value: unknown, wanted: string[]): unknown {
  for (const type of wanted) {
    if (typeof value === 'string') {
      const text = value.trim();
      if (type === 'integer' && INTEGER.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
      if (type === 'number' && NUMBER.test(text)) return Number(text);
      if (type === 'boolean' && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
      if (type === 'object' || type === 'array') {
        const parsed = parseOrUndefined(text);
        if (type === 'object' ? isRecord(parsed) : Array.isArray(parsed)) return parsed;
      }
    } else if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
      return String(value);
    }
  }
  return NO_CONVERSION;
}

// Keys come from the model's arguments: only own properties are read, and a write defines the
// property (a key named `__proto__` stays data, never a prototype).
function readPath(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function writePath(root: JsonRecord, path: string[], value: unknown): void {
  const parent = readPath(root, path.slice(0, -1));
  if (typeof parent === 'object' && parent !== null) Object.defineProperty(parent, path[path.length - 1], { value, writable: true, enumerable: true, configurable: true });
}
