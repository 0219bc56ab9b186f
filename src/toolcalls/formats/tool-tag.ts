import { singleRequiredStringProperty } from '../arguments.js';
import type { RepairBudget } from '../../util/bounded-json.js';
import { isPlainObject, parseJsonLenient, parseJsonStrict } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { NONE, indexFrom, literalAt, makeCall, outOfText } from './shared.js';
import type { BlockMatch } from './types.js';

// <TOOL>name: "free text"</TOOL> — the text becomes the value of the tool's single required
// string parameter. `<TOOL>name: {json}</TOOL>` and `<TOOL>name</TOOL>` (no arguments) also work.
// A tool without exactly one required string parameter cannot take free text: that stays content.

const OPEN = '<TOOL>';
const CLOSE = '</TOOL>';
const BODY = /^\s*([A-Za-z_][\w.:-]*)\s*(?::([\s\S]*))?$/;

export const toolTagFormat = defineFormat({
  name: 'tool-tag',
  triggers: '<',
  detect: (text) => text.includes(OPEN),
  matchAt(text, start, ctx, env): BlockMatch {
    const open = literalAt(text, start, OPEN);
    if (open === 'no') return NONE;
    if (open === 'partial') return outOfText(env);
    // A block cut off before </TOOL> stays content: its free text may be incomplete.
    const close = indexFrom(text, CLOSE, start + OPEN.length);
    if (close < 0) return outOfText(env);
    const end = close + CLOSE.length;
    const body = BODY.exec(text.slice(start + OPEN.length, close));
    if (!body) return { kind: 'none', skipTo: end };
    const writtenName = body[1];
    const name = ctx.resolveName(writtenName);
    if (name === null) return { kind: 'none', skipTo: end, rejectedNames: 1 };
    const args = argumentsOf((body[2] ?? '').trim(), ctx.tools.get(name)?.function.parameters, ctx.repairBudget);
    if (args === undefined) return { kind: 'none', skipTo: end };
    const call = makeCall(writtenName, args, ctx);
    return call ? { kind: 'calls', end, calls: [call] } : { kind: 'none', skipTo: end };
  },
});

function argumentsOf(value: string, schema: unknown, budget: RepairBudget): Record<string, unknown> | undefined {
  if (value === '') return {};
  if (value.startsWith('{')) {
    const parsed = parseJsonLenient(value, budget);
    if (isPlainObject(parsed)) return parsed;
  }
  const parameter = singleRequiredStringProperty(schema);
  if (parameter === undefined) return undefined;
  return { [parameter]: unquote(value) };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    const parsed = parseJsonStrict(value);
    if (typeof parsed === 'string') return parsed;
  }
  if (value.length >= 2 && ((value.startsWith("'") && value.endsWith("'")) || (value.startsWith('"') && value.endsWith('"')))) {
    return value.slice(1, -1);
  }
  return value;
}
