import { skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { type InvokeTags, invokeCalls, readInvoke } from './invoke-xml.js';
import { readBareName } from './markup.js';
import { INCOMPLETE, NONE, literalAt, outOfText } from './shared.js';
import type { BlockMatch, ScanEnv } from './types.js';

// StepFun Step-3 (full-width bars, plain underscores — not DeepSeek's "▁"), as SGLang's step3
// detector reads it; values are typed from the tool's schema:
//   <｜tool_calls_begin｜>
//   <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
//   <steptml:parameter name="city">Paris</steptml:parameter>
//   </steptml:invoke><｜tool_call_end｜>
//   <｜tool_calls_end｜>
// The call type ("function<｜tool_sep｜>") may be missing, and a <｜tool_sep｜> may stand between calls.

const CALLS_BEGIN = '<｜tool_calls_begin｜>';
const CALLS_END = '<｜tool_calls_end｜>';
const CALL_BEGIN = '<｜tool_call_begin｜>';
const CALL_END = '<｜tool_call_end｜>';
const SEP = '<｜tool_sep｜>';
// Values sit inline between the tags: surrounding whitespace is data (an edit tool's old_string), as
// vLLM's step3 parser keeps it.
const TAGS: InvokeTags = { prefix: 'steptml:', verbatimValues: true };
const INVOKE_OPEN = '<steptml:invoke';
const MAX_CALL_TYPE = 32;

type Invokes = Extract<ReturnType<typeof readInvoke>, { kind: 'ok' }>['value'][];

export const step3Format = defineFormat({
  name: 'step3',
  triggers: '<',
  detect: (text) => text.includes(CALLS_BEGIN) || text.includes(CALL_BEGIN),
  matchAt(text, start, ctx, env): BlockMatch {
    const section = literalAt(text, start, CALLS_BEGIN);
    const single = literalAt(text, start, CALL_BEGIN);
    if (section === 'partial' || single === 'partial') return outOfText(env);
    if (section === 'no' && single === 'no') return NONE;
    let at = section === 'yes' ? start + CALLS_BEGIN.length : start;
    let end = at;
    const invokes: Invokes = [];
    for (;;) {
      at = skipWhitespace(text, at);
      if (at >= text.length) {
        if (!env.final) return INCOMPLETE;
        break;
      }
      const sectionEnd = literalAt(text, at, CALLS_END);
      if (sectionEnd === 'yes') {
        end = at + CALLS_END.length;
        break;
      }
      // A <｜tool_sep｜> between two calls (seen in the wild, and in vLLM's step3 tests) is skipped.
      const between = invokes.length > 0 ? literalAt(text, at, SEP) : 'no';
      if (between === 'yes') {
        at = skipWhitespace(text, at + SEP.length);
        continue;
      }
      const callBegin = literalAt(text, at, CALL_BEGIN);
      if (sectionEnd === 'partial' || callBegin === 'partial' || between === 'partial') {
        if (!env.final) return INCOMPLETE;
        break;
      }
      if (callBegin === 'no') break;
      const start = invokeStart(text, at + CALL_BEGIN.length, env);
      if (start === 'incomplete') return INCOMPLETE;
      if (start === undefined) break;
      const invoke = readInvoke(text, start.at, TAGS, env, ctx.repairBudget);
      if (invoke.kind === 'incomplete') return INCOMPLETE;
      if (invoke.kind === 'none' || (start.name !== undefined && start.name !== invoke.value.name)) break;
      at = skipWhitespace(text, invoke.end);
      const callEnd = literalAt(text, at, CALL_END);
      if (callEnd === 'partial' || (at >= text.length && !env.final)) return INCOMPLETE;
      invokes.push(invoke.value);
      at = end = callEnd === 'yes' ? at + CALL_END.length : invoke.end;
    }
    return invokes.length > 0 ? invokeCalls(invokes, ctx, end) : NONE;
  },
});

/**
 * Where a call's invoke starts after <｜tool_call_begin｜>: after "function<｜tool_sep｜>" (the call
 * type, as the chat template writes it), or right there when the model left the type out. The type
 * may be followed by the tool's name on its own line (`function<｜tool_sep｜>edit_file\n<steptml:invoke
 * name="edit_file">`, as vLLM's step3 parser reads it); that name must be the invoke's.
 */
function invokeStart(text: string, from: number, env: ScanEnv): { at: number; name?: string } | 'incomplete' | undefined {
  const bare = skipWhitespace(text, from);
  const opener = literalAt(text, bare, INVOKE_OPEN);
  if (opener === 'yes') return { at: bare };
  if (opener === 'partial' && !env.final) return 'incomplete';
  const window = text.slice(from, from + MAX_CALL_TYPE + SEP.length);
  const sepInWindow = window.indexOf(SEP);
  if (sepInWindow < 0) return !env.final && from + window.length >= text.length ? 'incomplete' : undefined;
  const afterType = skipWhitespace(text, from + sepInWindow + SEP.length);
  if (literalAt(text, afterType, INVOKE_OPEN) !== 'no') return { at: afterType };
  const name = readBareName(text, afterType, env);
  if (name === 'incomplete') return 'incomplete';
  if (name === undefined) return { at: afterType };
  return { at: skipWhitespace(text, name.end), name: name.name };
}
