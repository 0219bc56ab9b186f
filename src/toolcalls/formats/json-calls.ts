import { findJsonEnd, parseJsonLenient, skipWhitespace } from '../text/json-scan.js';
import type { RepairBudget } from '../../util/bounded-json.js';
import { type CallShape, callShapesOf } from './shared.js';

// Reads one or more JSON tool calls written one after another, as Llama 3 (`{…}; {…}`),
// bare-JSON and fenced-JSON answers do: an array, or objects separated by `;`, `,` or newlines.

export type CallSequence = { kind: 'shapes'; shapes: CallShape[]; end: number } | { kind: 'incomplete' } | { kind: 'invalid' };

/** `start` must be at `{` or `[`. The sequence stops before the first value that is not a call. */
export function readCallSequence(text: string, start: number, final: boolean, strict: boolean, budget: RepairBudget): CallSequence {
  const shapes: CallShape[] = [];
  let at = start;
  let end = start;
  for (;;) {
    const valueEnd = findJsonEnd(text, at);
    if (valueEnd === 'incomplete' && !final) return { kind: 'incomplete' };
    if (typeof valueEnd !== 'number') break;
    const found = callShapesOf(parseJsonLenient(text.slice(at, valueEnd), budget), strict);
    if (!found) break;
    shapes.push(...found);
    end = valueEnd;

    // What follows decides whether another call comes.
    let next = skipWhitespace(text, valueEnd);
    if (next >= text.length) {
      if (!final) return { kind: 'incomplete' };
      break;
    }
    const separator = text[next];
    if (separator === ';' || separator === ',') {
      next = skipWhitespace(text, next + 1);
      if (next >= text.length && !final) return { kind: 'incomplete' };
      end = valueEnd + (text.slice(valueEnd).indexOf(separator) + 1);
    } else if (!text.slice(valueEnd, next).includes('\n')) {
      break;
    }
    if (next >= text.length || (text[next] !== '{' && text[next] !== '[')) break;
    at = next;
  }
  return shapes.length > 0 ? { kind: 'shapes', shapes, end } : { kind: 'invalid' };
}
