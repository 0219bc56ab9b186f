import { Ajv, type ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import { isRecord } from '../is-record.js';
import { type RepairBudget, THIS_KEY } from '../util/bounded-json.js';
import { jsonShape, sameJson, type JsonShape } from './json-shape.js';
import { linearFormats, linearRegExp, unsupportedPatterns } from './linear-regexp.js';

// Compiled validators of tools' `parameters` schemas, kept by schema text and bounded in count and
// bytes. Ajv itself keeps every schema it ever compiled (its cache, and the schema objects and
// functions in its code scope, which removeSchema does not free), so one Ajv instance would grow
// with every distinct schema a client sends. Compiles go to an Ajv "generation" instead: after
// GENERATION_COMPILES compiles the instance is dropped and a new one made. A compiled function
// holds its own closure, not its instance, so a retired generation is freed by the collector; what
// outlives it is exactly what the LRU below still holds.

/**
 * Schemas whose JSON text is longer than this are not compiled: ajv generates code per schema, 3–7 µs
 * per character on a 2-core machine (busy or not), so one compile at this size holds the event loop
 * ~50–110 ms (it was 64 KB: 200–450 ms).
 */
export const MAX_SCHEMA_CHARS = 16_384;
/** Validators kept (most recently used first). */
export const MAX_KEPT_VALIDATORS = 2_000;
/** Bytes of heap the kept validators may take, estimated per entry by ENTRY_BYTES_PER_CHAR. */
export const MAX_KEPT_VALIDATOR_BYTES = 32 * 1024 * 1024;
/**
 * Heap bytes one kept validator takes per character of its schema text, with a floor of
 * ENTRY_MIN_BYTES: measured ~24 KB for an 838-character schema with a pattern, a format and a
 * nested array (29 bytes a character), ~3.9 KB for a 73-character one
 * (scripts/measure-schema-cache.ts), so counted as 32 a character, at least 4 KB.
 */
const ENTRY_BYTES_PER_CHAR = 32;
const ENTRY_MIN_BYTES = 4_096;
/** Compiles per Ajv instance before it is replaced (what a retired instance can pin is at most this). */
export const GENERATION_COMPILES = 256;

export interface CompiledSchema {
  validate?: ValidateFunction;
  /** Parts of the schema that are not checked (patterns RE2 cannot run, a size limit). */
  unchecked: string[];
}

type JsonRecord = Record<string, unknown>;

// Made once: the formats' lazily compiled regexes are shared by every generation.
const formats = linearFormats();

function newAjv(): Ajv {
  // Client regexes run in RE2 (see linear-regexp.ts), formats too.
  return new Ajv({ strict: false, allErrors: true, validateSchema: false, code: { regExp: linearRegExp }, formats });
}

/**
 * The schemas looked up most recently, as private shapes built from their text, newest first:
 * every request brings its tools' schemas as new objects, and comparing one with a shape (an
 * early exit at the first difference, nothing allocated) costs less than serializing it to find
 * its text. A match means the same JSON text (sameJson), so the same validator.
 */
const RECENT_SCHEMAS = 16;
/** Schemas longer than this (characters of JSON) are not kept for comparison: the ring stays small. */
const RECENT_SCHEMA_CHARS = 8192;

export interface ValidatorCacheLimits {
  maxKept: number;
  maxKeptBytes: number;
  generationCompiles: number;
}

export class SchemaValidatorCache {
  private ajv = newAjv();
  private compilesInGeneration = 0;
  private generations = 1;
  /**
   * The last schema object looked up and its validator: the calls of one answer to the same tool
   * (validated one after another) look it up once. One slot, not a WeakMap entry or a property per
   * schema object (every request brings new objects). Schemas that are equal but new objects share
   * by their text.
   */
  private last: { schema: JsonRecord; compiled: CompiledSchema } | undefined;
  // Keyed by the schema's JSON text itself (a Map hashes it faster than a digest would, and equal
  // text is exactly what may share a validator).
  private readonly byText: LRUCache<string, CompiledSchema & { size: number }>;
  private readonly recent: Array<{ shape: JsonShape; compiled: CompiledSchema }> = [];
  private readonly generationCompiles: number;

  constructor(limits: ValidatorCacheLimits = { maxKept: MAX_KEPT_VALIDATORS, maxKeptBytes: MAX_KEPT_VALIDATOR_BYTES, generationCompiles: GENERATION_COMPILES }) {
    this.byText = new LRUCache({ max: limits.maxKept, maxSize: limits.maxKeptBytes, sizeCalculation: (entry) => entry.size });
    this.generationCompiles = limits.generationCompiles;
  }

  /**
   * The validator of `schema`, compiled at most once per schema text while it is kept. A compile is
   * paid from the tenant's budget by the schema's length (ajv generates code: 3–7 µs per character
   * of schema); when the budget cannot pay, a new schema is not compiled and its arguments go
   * unchecked, said so.
   */
  lookup(schema: JsonRecord, budget: RepairBudget): CompiledSchema {
    if (this.last?.schema === schema) return this.last.compiled;
    const recent = this.recent;
    for (let i = 0; i < recent.length; i++) {
      if (sameJson(schema, recent[i].shape)) {
        this.last = { schema, compiled: recent[i].compiled };
        return recent[i].compiled;
      }
    }
    const text = JSON.stringify(schema);
    let compiled: CompiledSchema | undefined;
    if (text.length > MAX_SCHEMA_CHARS) {
      compiled = { unchecked: [`a parameters schema of ${text.length} characters is over the schema-check limit of ${MAX_SCHEMA_CHARS}`] };
    } else {
      // get() already marks a cached entry as recently used: set only what is new.
      compiled = this.byText.get(text);
      if (compiled === undefined) {
        // Not kept anywhere: the schema is compiled once the budget refills.
        if (!budget.takeCompile(text.length)) return COMPILE_BUSY;
        const entry = { ...this.compile(schema), size: Math.max(ENTRY_MIN_BYTES, ENTRY_BYTES_PER_CHAR * text.length) };
        this.byText.set(text, entry);
        compiled = entry;
      }
    }
    if (text.length <= RECENT_SCHEMA_CHARS) {
      recent.unshift({ shape: jsonShape(text), compiled });
      if (recent.length > RECENT_SCHEMAS) recent.pop();
    }
    this.last = { schema, compiled };
    return compiled;
  }

  /** What the cache holds now (for tests and the measurement script). */
  stats(): { kept: number; keptBytes: number; generation: number; ajvCached: number; ajvScopeSchemas: number } {
    const internals = this.ajv as unknown as { _cache: Map<unknown, unknown>; scope: { get(): Record<string, unknown[] | undefined> } };
    return {
      kept: this.byText.size,
      keptBytes: this.byText.calculatedSize,
      generation: this.generations,
      ajvCached: internals._cache.size,
      ajvScopeSchemas: internals.scope.get().schema?.length ?? 0,
    };
  }

  private compile(schema: JsonRecord): CompiledSchema {
    if (this.compilesInGeneration >= this.generationCompiles) {
      this.ajv = newAjv();
      this.compilesInGeneration = 0;
      this.generations++;
    }
    this.compilesInGeneration++;
    // `$schema` (2020-12 etc.) and `$id` would make ajv look up meta-schemas or refuse duplicates;
    // the keywords tool schemas use are the same across drafts.
    const { $schema: _schema, $id: _id, ...rest } = schema;
    unsupportedPatterns.length = 0;
    try {
      const validate = this.ajv.compile(rest);
      const unsupported = [...unsupportedPatterns];
      const unchecked = unsupported.map((pattern) => `pattern ${JSON.stringify(pattern.slice(0, 100))} is not checked (lookaround or backreference: no linear-time match)`);
      // An unchecked pattern "matches" everything: right for `pattern`, wrong for patternProperties
      // (its subschema would apply to every property, and coercion would act on it): no check then.
      if (unsupported.length > 0 && patternPropertyKeys(rest).some((key) => unsupported.includes(key))) {
        return { unchecked: [...unchecked, 'the parameters schema is not checked: a patternProperties pattern cannot run in linear time'] };
      }
      return { validate, unchecked };
    } catch {
      return { unchecked: ['the parameters schema could not be compiled'] };
    } finally {
      // Ajv's own cache is keyed by this object, which nothing will ever pass again.
      this.ajv.removeSchema(rest);
      unsupportedPatterns.length = 0;
    }
  }
}

const COMPILE_BUSY: CompiledSchema = {
  unchecked: [`the parameters schema is not checked: the schema-check budget of ${THIS_KEY} is used up for now`],
};

/** The process's cache: every request's tool schemas, whichever tenant sent them (validators hold no tenant data). */
export const schemaValidators = new SchemaValidatorCache();

/** The validator of `schema` from the process's cache (see SchemaValidatorCache.lookup). */
export function validatorFor(schema: JsonRecord, budget: RepairBudget): CompiledSchema {
  return schemaValidators.lookup(schema, budget);
}

/** Every patternProperties key anywhere in a schema (iterative walk). */
function patternPropertyKeys(schema: JsonRecord): string[] {
  const keys: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node) && isRecord((node as JsonRecord).patternProperties)) keys.push(...Object.keys((node as JsonRecord).patternProperties as JsonRecord));
    stack.push(...(Array.isArray(node) ? node : Object.values(node)));
  }
  return keys;
}
