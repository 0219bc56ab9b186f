// Validate response objects against the Open Responses spec's ResponseResource schema
// (test/fixtures/openresponses/ResponseResource.json, see the README there). Its `$ref`s point at
// component files that are not vendored: they are replaced by `{}` (any value), so what is checked is
// the response object's own level: every required field present, each of the right type or null.
import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

const SCHEMA_URL = new URL('../fixtures/openresponses/ResponseResource.json', import.meta.url);
// ajv is CommonJS: under NodeNext its default export is the module object.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;

type Json = Record<string, unknown>;
let validator: ValidateFunction | undefined;
let schema: Json | undefined;

const isRef = (node: unknown): boolean => !!node && typeof node === 'object' && typeof (node as Json).$ref === 'string';

/** A `$ref`, or a union with a `$ref` (or a union of them) among its branches, becomes `{}`: any value. */
function withoutRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutRefs);
  if (!node || typeof node !== 'object') return node;
  const union = (node as Json).oneOf ?? (node as Json).anyOf;
  if (isRef(node) || (Array.isArray(union) && union.some((branch) => isRef(branch) || (branch && typeof branch === 'object' && ('oneOf' in branch || 'anyOf' in branch))))) return {};
  return Object.fromEntries(Object.entries(node as Json).map(([key, value]) => [key, withoutRefs(value)]));
}

/** The vendored ResponseResource schema as written. */
export function responseResourceSchema(): Json {
  schema ??= JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as Json;
  return schema;
}

/** Errors of `value` against ResponseResource (empty when valid). */
export function openResponsesErrors(value: unknown): string[] {
  if (!validator) {
    const { example: _example, ...rest } = responseResourceSchema();
    validator = new Ajv2020({ strict: false, allErrors: true, logger: false }).compile(withoutRefs(rest) as Json);
  }
  if (validator(value)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
