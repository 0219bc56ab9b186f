import { skipWhitespace } from '../text/json-scan.js';
import type { ParseContext, ParsedCall } from '../types.js';
import { defineFormat } from './define.js';
import { type WrittenArgCall, callOf, readArgCall } from './glm45.js';
import { jsonWrappedFormats } from './json-wrapped.js';
import { INCOMPLETE, NONE, literalAt, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// Tencent Hunyuan (Hy3): GLM-style key/value calls with <tool_sep> after the name, inside one
// <tool_calls> section (as vLLM's hy_v3 parser reads it):
//   <tool_calls>
//   <tool_call>get_weather<tool_sep>
//   <arg_key>city</arg_key>
//   <arg_value>Beijing</arg_value>
//   </tool_call>
//   </tool_calls>
// The section is one block: its tags go with the calls. <tool_calls>[{json}] (Hunyuan-A13B,
// Jamba) is the JSON wrapper format's; this one only claims a section that opens with <tool_call>,
// or either section as the whole of Hunyuan-A13B's answer wrapper, `<answer>\n<tool_calls>…</tool_calls>\n</answer>`
// (as its reasoning parser frames the answer): the wrapper then goes with the calls too.

const OPEN = '<tool_calls>';
const CLOSE = '</tool_calls>';
const CALL_OPEN = '<tool_call>';
const ANSWER_OPEN = '<answer>';
const ANSWER_CLOSE = '</answer>';
const JSON_SECTION = jsonWrappedFormats.find((format) => format.name === 'tool-calls-tag');

export const hunyuanFormat = defineFormat({
  name: 'hunyuan',
  triggers: '<',
  detect: (text) => text.includes(OPEN) && (text.includes(CALL_OPEN) || text.includes(ANSWER_OPEN)),
  matchAt(text, start, ctx, env): BlockMatch {
    if (text[start + 1] === 'a') return answerWrapped(text, start, ctx, env);
    return section(text, start, ctx, env);
  },
});

/** `<answer>` + one call section + `</answer>`, as one block; anything else in the answer leaves the wrapper as content. */
function answerWrapped(text: string, start: number, ctx: ParseContext, env: ScanEnv): BlockMatch {
  const open = literalAt(text, start, ANSWER_OPEN);
  if (open !== 'yes') return open === 'partial' ? outOfText(env) : NONE;
  const inner = skipWhitespace(text, start + ANSWER_OPEN.length);
  if (inner >= text.length) return outOfText(env);
  const opener = literalAt(text, inner, OPEN);
  if (opener !== 'yes') return opener === 'partial' ? outOfText(env) : NONE;
  let calls = section(text, inner, ctx, env);
  if (calls.kind === 'none' && calls.skipTo === undefined && JSON_SECTION) calls = JSON_SECTION.matchAt(text, inner, ctx, env);
  if (calls.kind === 'incomplete') return INCOMPLETE;
  if (calls.kind !== 'calls') return NONE; // the scanner meets the section itself next
  const after = skipWhitespace(text, calls.end);
  if (after >= text.length) return env.final ? calls : INCOMPLETE;
  const close = literalAt(text, after, ANSWER_CLOSE);
  if (close === 'partial') return env.final ? NONE : INCOMPLETE;
  return close === 'yes' ? { ...calls, end: after + ANSWER_CLOSE.length } : NONE;
}

function section(text: string, start: number, ctx: ParseContext, env: ScanEnv): BlockMatch {
    const open = literalAt(text, start, OPEN);
    if (open === 'no') return NONE;
    if (open === 'partial') return outOfText(env);
    const written: WrittenArgCall[] = [];
    let at = start + OPEN.length;
    let end = at;
    for (;;) {
      at = skipWhitespace(text, at);
      if (at >= text.length) {
        if (!env.final) return INCOMPLETE;
        break;
      }
      const close = literalAt(text, at, CLOSE);
      if (close === 'yes') {
        end = at + CLOSE.length;
        break;
      }
      const call = literalAt(text, at, CALL_OPEN);
      if (close === 'partial' || call === 'partial') {
        if (!env.final) return INCOMPLETE;
        break;
      }
      if (call === 'no') break; // the section's closing tag is missing: it ends after its last call
      const read = readArgCall(text, at, env, ctx.repairBudget);
      if (read.kind === 'incomplete') return INCOMPLETE;
      if (read.kind === 'none') break;
      written.push(read.value);
      at = end = read.end;
    }
    if (written.length === 0) return NONE;
    const calls: ParsedCall[] = [];
    let rejected = 0;
    for (const item of written) {
      const call = callOf(item, ctx);
      if (call) calls.push(call);
      else rejected++;
    }
    if (rejected > 0) return { kind: 'none', skipTo: end, rejectedNames: rejected };
    return { kind: 'calls', end, calls };
}
