import { parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import type { RepairBudget } from '../../util/bounded-json.js';
import { defineFormat } from './define.js';
import { NONE, type CallShape, callsFromShapes, indexFrom, literalAt, outOfText } from './shared.js';
import type { BlockMatch } from './types.js';

// DeepSeek V3 / V3.1 special-token calls (full-width bars, "▁" for spaces), best effort:
//   V3:   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name\n```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//   V3.1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
// The section markers may be missing; the block ends after the last complete call.

const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEP = '<｜tool▁sep｜>';
const FENCE = '```';

export const deepseekFormat = defineFormat({
  name: 'deepseek',
  triggers: '<',
  detect: (text) => text.includes(CALL_BEGIN),
  matchAt(text, start, ctx, env): BlockMatch {
    let at = start;
    const section = literalAt(text, at, CALLS_BEGIN);
    const single = literalAt(text, at, CALL_BEGIN);
    if (section === 'partial' || single === 'partial') return outOfText(env);
    if (section === 'yes') at += CALLS_BEGIN.length;
    else if (single === 'no') return NONE;

    const shapes: CallShape[] = [];
    let end = at;
    for (;;) {
      at = skipWhitespace(text, at);
      if (at >= text.length) {
        if (!env.final) return outOfText(env);
        break;
      }
      const sectionEnd = literalAt(text, at, CALLS_END);
      const callBegin = literalAt(text, at, CALL_BEGIN);
      if (sectionEnd === 'yes') {
        end = at + CALLS_END.length;
        break;
      }
      if (callBegin === 'no' && sectionEnd === 'no') break;
      if (callBegin === 'partial' || sectionEnd === 'partial') {
        if (!env.final) return outOfText(env);
        break;
      }
      const callEnd = indexFrom(text, CALL_END, at);
      if (callEnd < 0) {
        if (!env.final) return outOfText(env);
        break; // truncated call: stays content
      }
      const shape = shapeOf(text.slice(at + CALL_BEGIN.length, callEnd), ctx.repairBudget);
      if (!shape) return { kind: 'none', skipTo: callEnd + CALL_END.length };
      shapes.push(shape);
      at = end = callEnd + CALL_END.length;
    }
    if (shapes.length === 0) return NONE;
    return callsFromShapes(shapes, ctx, end, end);
  },
});

function shapeOf(inner: string, budget: RepairBudget): CallShape | undefined {
  const sep = inner.indexOf(SEP);
  if (sep < 0) return undefined;
  const left = inner.slice(0, sep).trim();
  const right = inner.slice(sep + SEP.length);
  const v3 = v3Body(right);
  const [name, argsText] = v3 ?? [left, right.trim()];
  const args = argsText === '' ? {} : parseJsonLenient(argsText, budget);
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  return { name: name.trim(), args };
}

/**
 * V3's `name\n```json\n{…}\n```` after the separator: [name, JSON text], or undefined. Read with
 * indexOf, not a regex: a backtracking pattern here cost cubic time on long runs of spaces.
 */
function v3Body(right: string): [string, string] | undefined {
  const open = right.indexOf(FENCE);
  const close = right.lastIndexOf(FENCE);
  if (open < 0 || close <= open || right.slice(close + FENCE.length).trim() !== '') return undefined;
  const name = right.slice(0, open).trim();
  if (name === '' || name.includes('\n') || name.includes('`')) return undefined;
  let body = right.slice(open + FENCE.length, close);
  if (body.startsWith('json')) body = body.slice(4);
  return [name, body.trim()];
}
