import { findJsonEnd, isPlainObject, parseJsonStrict, skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { readCallSequence } from './json-calls.js';
import { INCOMPLETE, NONE, callsFromShapes, literalAt, outOfText } from './shared.js';
import type { BlockMatch } from './types.js';

// Llama 3.x JSON tool calls after <|python_tag|>: {"name": …, "parameters": {…}}, several
// separated by `;`. A trailing <|eom_id|> / <|eot_id|> belongs to the block. (The same JSON
// without the tag, at the start of an answer, is read by the json format.)

const TAG = '<|python_tag|>';
const END_TOKENS = ['<|eom_id|>', '<|eot_id|>'];

export const llama3JsonFormat = defineFormat({
  name: 'llama3-json',
  triggers: '<',
  detect: (text) => text.includes(TAG),
  matchAt(text, start, ctx, env): BlockMatch {
    const tag = literalAt(text, start, TAG);
    if (tag === 'no') return NONE;
    if (tag === 'partial') return outOfText(env);
    const at = skipWhitespace(text, start + TAG.length);
    if (at >= text.length) return outOfText(env);
    if (text[at] !== '{' && text[at] !== '[') return NONE; // <|python_tag|> also starts built-in python code
    const sequence = readCallSequence(text, at, env.final, false, ctx.repairBudget);
    if (sequence.kind === 'incomplete') return INCOMPLETE;
    if (sequence.kind === 'invalid') return NONE;
    let end = sequence.end;
    const afterCalls = skipWhitespace(text, end);
    for (const token of END_TOKENS) {
      const found = literalAt(text, afterCalls, token);
      if (found === 'yes') end = afterCalls + token.length;
      else if (found === 'partial' && !env.final) return INCOMPLETE;
    }
    return callsFromShapes(sequence.shapes, ctx, end, end);
  },
});

/**
 * Llama 3.x JSON calls inside prose: `Here is the result: {"name": "f", "parameters": {…}} Would
 * you like…` (models really write this). Prose that merely shows JSON must stay prose, so only
 * Llama's own call shape counts: an object of exactly `name` (first) and `parameters`, naming a
 * declared tool, with parameters that fit its schema (every required one present, none
 * undeclared), not glued to a word, quote, bracket or `=`, and not followed by `,` `}` `]` `:`
 * (which would make it a value inside a larger JSON text). A guess, so never inside unclosed
 * reasoning. Runs after the json format, which takes JSON opening or closing the answer.
 */
export const llama3InlineFormat = defineFormat({
  name: 'llama3-inline',
  triggers: '{',
  detect: (text) => text.includes('"parameters"'),
  matchAt(text, start, ctx, env): BlockMatch {
    if (env.inReasoning || /[\w"'=`\\([{,]/.test(env.prevChar)) return NONE;
    const opener = nameKeyAt(text, start);
    if (opener !== 'yes') return opener === 'partial' ? outOfText(env) : NONE;
    const end = findJsonEnd(text, start);
    if (end === 'incomplete') return outOfText(env);
    if (end === 'invalid') return NONE;
    const value = parseJsonStrict(text.slice(start, end));
    if (!isPlainObject(value) || !isLlamaCall(value)) return NONE;
    const after = skipWhitespace(text, end);
    if (after >= text.length && !env.final) return INCOMPLETE;
    if (after < text.length && ',}]:'.includes(text[after])) return NONE;
    const name = ctx.resolveName(value.name);
    if (name === null) return { kind: 'none', rejectedNames: 1 };
    if (!fitsSchema(value.parameters, ctx.tools.get(name)?.function.parameters)) return NONE;
    return callsFromShapes([{ name: value.name, args: value.parameters }], ctx, end, end);
  },
});

/** Does `{"name":` start at `start` (whitespace allowed between the tokens)? */
function nameKeyAt(text: string, start: number): 'yes' | 'no' | 'partial' {
  let at = skipWhitespace(text, start + 1);
  if (at >= text.length) return 'partial';
  const key = literalAt(text, at, '"name"');
  if (key !== 'yes') return key;
  at = skipWhitespace(text, at + 6);
  if (at >= text.length) return 'partial';
  return text[at] === ':' ? 'yes' : 'no';
}

function isLlamaCall(value: Record<string, unknown>): value is { name: string; parameters: Record<string, unknown> } {
  return Object.keys(value).length === 2 && typeof value.name === 'string' && isPlainObject(value.parameters);
}

/** Required parameters present and no parameter the schema does not declare. */
function fitsSchema(args: Record<string, unknown>, schema: unknown): boolean {
  if (!isPlainObject(schema)) return true;
  const properties = isPlainObject(schema.properties) ? schema.properties : undefined;
  const required = Array.isArray(schema.required) ? schema.required : [];
  if (!required.every((key) => typeof key !== 'string' || Object.hasOwn(args, key))) return false;
  if (properties && schema.additionalProperties !== true && Object.keys(args).some((key) => !Object.hasOwn(properties, key))) return false;
  return true;
}
