import { skipWhitespace } from '../text/json-scan.js';
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
    const sequence = readCallSequence(text, at, env.final, false);
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
