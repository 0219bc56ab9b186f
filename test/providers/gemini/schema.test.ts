import t, { type Test } from 'tap';
import { convertParameters, MAX_SCHEMA_NODES, restoreArgs } from '../../../src/providers/gemini/schema.js';
import { SCHEMA_FIELDS, validateRequest } from './emulator/validate.js';

// JSON Schema → Gemini Schema subset. Every converted schema is also run through the
// emulator's validator (the real API's parse + semantic rules) to prove the API would take it.

function acceptedByGemini(t: Test, parameters: unknown): void {
  const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [{ functionDeclarations: [{ name: 'f', description: '', parameters }] }] };
  t.equal(validateRequest(body, 'gemini-2.5-flash'), null, 'the converted schema passes the emulator validation');
}

function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysDeep(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, sub] of Object.entries(value)) {
      out.add(key);
      // property names are data, not schema keywords
      if (key === 'properties') Object.values(sub as object).forEach((v) => keysDeep(v, out));
      else if (key !== 'example' && key !== 'default') keysDeep(sub, out);
    }
  }
  return out;
}

t.test('additionalProperties, $schema, strict, examples and friends are dropped', async (t) => {
  const { parameters, fix } = convertParameters({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    strict: true,
    additionalProperties: false,
    propertyNames: { pattern: '^[a-z]+$' },
    properties: { q: { type: 'string', examples: ['hello'], $comment: 'x', minLength: 1 } },
    required: ['q'],
  });
  t.same(parameters, { type: 'OBJECT', properties: { q: { type: 'STRING', example: 'hello', minLength: 1 } }, required: ['q'] });
  t.equal(fix, null);
  for (const key of keysDeep(parameters)) t.ok(SCHEMA_FIELDS.has(key), `${key} is a Schema proto field`);
  acceptedByGemini(t, parameters);
});

t.test('$ref/$defs are inlined, sibling keywords win', async (t) => {
  const { parameters } = convertParameters({
    type: 'object',
    $defs: { Point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] } },
    properties: { from: { $ref: '#/$defs/Point', description: 'start' }, to: { $ref: '#/definitions/Missing' } },
  });
  t.same(parameters?.properties?.from, { type: 'OBJECT', description: 'start', properties: { x: { type: 'NUMBER' }, y: { type: 'NUMBER' } }, required: ['x', 'y'] });
  t.equal(parameters?.properties?.to?.type, 'OBJECT', 'an unresolvable ref degrades to a free-form object');
  acceptedByGemini(t, parameters);
});

t.test('a $ref cycle is cut after one expansion', async (t) => {
  const { parameters } = convertParameters({
    type: 'object',
    properties: { root: { $ref: '#/$defs/Node' } },
    $defs: { Node: { type: 'object', description: 'A tree node', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
  });
  const root = parameters?.properties?.root;
  t.equal(root?.type, 'OBJECT');
  const nested = root?.properties?.children?.items;
  t.equal(nested?.type, 'OBJECT');
  t.notOk(nested?.properties, 'the recursive level has no properties');
  t.match(nested?.description, /Recursive structure/);
  t.ok(JSON.stringify(parameters).length < 2000, 'finite output');
  acceptedByGemini(t, parameters);

  const self = convertParameters({ type: 'object', properties: { next: { $ref: '#' } } });
  t.equal(self.parameters?.properties?.next?.type, 'OBJECT', 'a root self-reference is cut too');
});

t.test('type arrays and null unions become nullable', async (t) => {
  const { parameters } = convertParameters({
    type: 'object',
    properties: {
      a: { type: ['string', 'null'] },
      b: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'b' },
      c: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      d: { type: ['string', 'number', 'null'] },
    },
  });
  t.same(parameters?.properties?.a, { type: 'STRING', nullable: true });
  t.same(parameters?.properties?.b, { type: 'INTEGER', description: 'b', nullable: true });
  t.same(parameters?.properties?.c, { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] });
  t.same(parameters?.properties?.d, { anyOf: [{ type: 'STRING', nullable: true }, { type: 'NUMBER', nullable: true }] });
  acceptedByGemini(t, parameters);
});

t.test('exclusiveMinimum, multipleOf and formats become bounds or hints', async (t) => {
  const { parameters } = convertParameters({
    type: 'object',
    properties: {
      count: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 },
      ratio: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
      when: { type: 'string', format: 'date-time' },
      mail: { type: 'string', format: 'email', description: 'Address.' },
    },
  });
  t.same(parameters?.properties?.count, { type: 'INTEGER', minimum: 1, maximum: 9 });
  t.same(parameters?.properties?.ratio, { type: 'NUMBER', minimum: 0, description: 'Must be greater than 0. Must be a multiple of 0.5.' });
  t.same(parameters?.properties?.when, { type: 'STRING', format: 'date-time' });
  t.same(parameters?.properties?.mail, { type: 'STRING', description: 'Address. Format: email.' });
  acceptedByGemini(t, parameters);
});

t.test('default is kept (a Schema proto field)', async (t) => {
  const { parameters } = convertParameters({ type: 'object', properties: { unit: { type: 'string', enum: ['c', 'f'], default: 'c' }, n: { type: 'integer', default: 3 } } });
  t.same(parameters?.properties?.unit, { type: 'STRING', enum: ['c', 'f'], default: 'c' });
  t.same(parameters?.properties?.n, { type: 'INTEGER', default: 3 });
  acceptedByGemini(t, parameters);
});

t.test('enums of numbers become string enums and come back as numbers', async (t) => {
  const { parameters, fix } = convertParameters({
    type: 'object',
    properties: {
      level: { type: 'integer', enum: [1, 2, 3], default: 2 },
      flag: { const: true },
      mode: { const: 'fast' },
      tags: { type: 'array', items: { enum: [10, 20] } },
      nested: { type: 'object', properties: { ratio: { type: 'number', enum: [0.5, 1.5] } } },
      either: { anyOf: [{ const: 1 }, { const: 'one' }] },
    },
  });
  t.same(parameters?.properties?.level, { type: 'STRING', enum: ['1', '2', '3'], default: '2' });
  t.same(parameters?.properties?.flag, { type: 'STRING', enum: ['true'] });
  t.same(parameters?.properties?.mode, { type: 'STRING', enum: ['fast'] });
  t.same(parameters?.properties?.either, { type: 'STRING', enum: ['1', 'one'] });
  acceptedByGemini(t, parameters);

  const restored = restoreArgs({ level: '2', flag: 'true', mode: 'fast', tags: ['10', '20'], nested: { ratio: '1.5' }, either: '1', other: '2' }, fix);
  t.same(restored, { level: 2, flag: true, mode: 'fast', tags: [10, 20], nested: { ratio: 1.5 }, either: 1, other: '2' });
});

t.test('allOf is merged; missing types and items are filled in', async (t) => {
  const { parameters } = convertParameters({
    type: 'object',
    properties: {
      merged: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'boolean' } } }] },
      anything: { description: 'any value' },
      list: { type: 'array' },
      tuple: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      map: { type: 'object', additionalProperties: { type: 'string' } },
      gone: false,
    },
    required: ['merged', 'ghost'],
  });
  t.same(parameters?.properties?.merged, { type: 'OBJECT', properties: { a: { type: 'STRING' }, b: { type: 'BOOLEAN' } }, required: ['a'] });
  t.same(parameters?.properties?.anything, { type: 'STRING', description: 'any value' });
  t.same(parameters?.properties?.list, { type: 'ARRAY', items: { type: 'STRING' } });
  t.same(parameters?.properties?.tuple?.items, { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] });
  t.same(parameters?.properties?.map, { type: 'OBJECT' });
  t.notOk(parameters?.properties?.gone);
  t.same(parameters?.required, ['merged'], 'required names without a property are dropped');
  acceptedByGemini(t, parameters);
});

t.test('no-argument tools send no parameters', async (t) => {
  t.same(convertParameters({ type: 'object', properties: {}, additionalProperties: false }), { fix: null });
  t.same(convertParameters(undefined), { fix: null });
});

t.test('the emulator rejects what the converter removes', async (t) => {
  const raw = { type: 'object', additionalProperties: false, $schema: 'x', properties: { n: { type: ['integer', 'null'], exclusiveMinimum: 0 } } };
  const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [{ functionDeclarations: [{ name: 'f', description: '', parameters: raw }] }] };
  const error = validateRequest(body, 'gemini-2.5-flash');
  t.equal(error?.status, 400);
  t.match(error?.body.error.message, `Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`);
  t.match(error?.body.error.message, `Unknown name "$schema" at 'tools[0].function_declarations[0].parameters': Cannot find field.`);
  t.match(error?.body.error.message, `Unknown name "type" at 'tools[0].function_declarations[0].parameters.properties[0].value': Proto field is not repeating, cannot start list.`);
  t.match(error?.body.error.message, `Unknown name "exclusiveMinimum" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`);
});

// Issue 14: client schemas are untrusted. Each def referring twice to the next doubles the inlined
// schema per level (2^40 nodes here); allOf chains through $refs recursed without a depth bound.
t.test('conversion is bounded: $ref fan-out and allOf chains through $refs', async (t) => {
  const defs: Record<string, unknown> = { d40: { type: 'string' } };
  for (let i = 0; i < 40; i++) defs[`d${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } } };
  const fanOut = convertParameters({ type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs: defs });
  let nodes = 0;
  const stack: unknown[] = [fanOut.parameters];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    nodes++;
    stack.push(...Object.values(node));
  }
  t.ok(nodes < MAX_SCHEMA_NODES * 4, `${nodes} nodes in the converted schema`);

  const chain: Record<string, unknown> = {};
  for (let i = 0; i < 20_000; i++) chain[`c${i}`] = { allOf: [{ $ref: `#/$defs/c${i + 1}` }], properties: { [`p${i}`]: { type: 'string' } } };
  chain.c20000 = { type: 'object' };
  const merged = convertParameters({ $ref: '#/$defs/c0', $defs: chain });
  t.equal(merged.parameters?.type, 'OBJECT', 'no stack overflow; merged as far as the depth limit');
});
