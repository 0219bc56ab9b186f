import type { ErrorObject } from 'ajv';
import { isRecord } from '../is-record.js';
import type { RepairBudget } from '../util/bounded-json.js';
import { MAX_VALIDATED_CHARS, readArgumentsObject } from '../toolcalls/arguments.js';
import { validatorFor } from '../toolcalls/schema-validators.js';

// The contract's reading of one call's arguments: they must be a JSON object valid against the
// tool's `parameters` schema. Only repairs that cannot change meaning are allowed: JSON syntax
// (what jsonrepair fixes, a double-encoded object; never text cut off before its end, which
// jsonrepair would complete) and a string holding a number where the schema
// wants a number, or `"true"`/`"false"` where it wants a boolean. A number where a string is
// wanted, an extra property, a missing one, a value outside an enum: each is a violation, reported
// with the schema's own words. What the schema check cannot check (size limits, an uncompilable
// schema, a spent compile budget) passes, and so does a value that does not match its `format`
// (an annotation in JSON Schema, not a rule).

/** A repair that cannot change meaning: JSON syntax (or double encoding), a scalar written as a string. */
export type ArgumentsRepair = 'syntax' | 'coerced';

export type ArgumentsVerdict =
  /** `arguments`: the text to hand on (the upstream's own, or repaired without changing meaning, said in `repairs`). */
  | { valid: true; arguments: string; repairs: ArgumentsRepair[] }
  | { valid: false; problems: string[] };

/** Problems listed per call, at most this many (the rest are counted). */
const MAX_PROBLEMS = 5;
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^-?\d+$/;

export function checkArguments(raw: string, schema: unknown, budget: RepairBudget): ArgumentsVerdict {
  const parsed = parseObject(raw, budget);
  if (parsed === 'cut off') return { valid: false, problems: ['the arguments are cut off before their end (an unterminated JSON object)'] };
  if (!parsed) return { valid: false, problems: ['the arguments are not a JSON object'] };
  let value = parsed.value;
  const repairs: ArgumentsRepair[] = parsed.repaired ? ['syntax'] : [];
  const validate = isRecord(schema) && Object.keys(schema).length > 0 && raw.length <= MAX_VALIDATED_CHARS ? validatorFor(schema, budget).validate : undefined;
  if (validate && !validate(value) && !onlyFormats(validate.errors)) {
    const coerced = scalarsFromStrings(value, validate.errors ?? []);
    if (coerced === undefined || (!validate(coerced) && !onlyFormats(validate.errors))) return { valid: false, problems: describe(validate.errors ?? []) };
    value = coerced;
    repairs.push('coerced');
  }
  return { valid: true, arguments: repairs.length > 0 ? JSON.stringify(value) : raw, repairs };
}

/**
 * Every error is a `format` mismatch: `format` is an annotation in JSON Schema unless a schema opts
 * into format assertion, which a tool's `parameters` cannot; a `date-time` without its offset is still
 * the model's answer, not a broken one.
 */
function onlyFormats(errors: readonly ErrorObject[] | null | undefined): boolean {
  return (errors ?? []).every((error) => error.keyword === 'format');
}

/** The arguments as an object (toolcalls/arguments.ts readArgumentsObject); blank text is `{}`, repaired. */
function parseObject(raw: string, budget: RepairBudget): ReturnType<typeof readArgumentsObject> {
  const text = raw.trim();
  return text === '' ? { value: {}, repaired: true } : readArgumentsObject(text, budget);
}

/**
 * A copy with every string the schema wants as a number (or boolean) turned into that number (or
 * boolean), or undefined when a type error is anything else (or there is none).
 */
function scalarsFromStrings(value: Record<string, unknown>, errors: readonly ErrorObject[]): Record<string, unknown> | undefined {
  let copy: Record<string, unknown> | undefined;
  for (const error of errors) {
    if (error.keyword !== 'type') continue;
    const wanted = ([] as unknown[]).concat(error.params.type);
    const path = pointerPath(error.instancePath);
    const current = readPath(copy ?? value, path);
    if (path.length === 0 || typeof current !== 'string') return undefined;
    const text = current.trim();
    let scalar: number | boolean | undefined;
    if (wanted.includes('integer') && INTEGER.test(text) && Number.isSafeInteger(Number(text))) scalar = Number(text);
    else if (wanted.includes('number') && NUMBER.test(text)) scalar = Number(text);
    else if (wanted.includes('boolean') && (text === 'true' || text === 'false')) scalar = text === 'true';
    if (scalar === undefined) return undefined;
    copy ??= structuredClone(value);
    writePath(copy, path, scalar);
  }
  return copy;
}

function pointerPath(pointer: string): string[] {
  return pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function readPath(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function writePath(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const parent = readPath(root, path.slice(0, -1));
  if (typeof parent === 'object' && parent !== null) (parent as Record<string, unknown>)[path[path.length - 1]] = value;
}

/** The schema's errors in short words: `/city must be string`, `/ has a property the schema does not allow: 'zzz'`. */
function describe(errors: readonly ErrorObject[]): string[] {
  const out: string[] = [];
  for (const error of errors) {
    if (error.keyword === 'format') continue; // an annotation, never a problem by itself
    const at = error.instancePath || '/';
    const params = error.params as Record<string, unknown>;
    let text: string;
    if (error.keyword === 'additionalProperties') text = `${at} has a property the schema does not allow: '${String(params.additionalProperty)}'`;
    else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) text = `${at} must be one of ${JSON.stringify(params.allowedValues).slice(0, 200)}`;
    else text = `${at} ${error.message ?? error.keyword}`;
    if (!out.includes(text)) out.push(text);
  }
  if (out.length <= MAX_PROBLEMS) return out;
  return [...out.slice(0, MAX_PROBLEMS), `and ${out.length - MAX_PROBLEMS} more`];
}
