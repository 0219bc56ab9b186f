import { isPlainObject } from '../text/json-scan.js';
import type { ParseContext } from '../types.js';
import { typeValue } from './qwen3-coder.js';
import type { ScanEnv } from './types.js';

// Building blocks for the tag-based formats (GLM, Hunyuan, MiniMax M2, DeepSeek DSML, Step-3,
// gpt-oss harmony): reads of names and attributes, and text values typed from the declared
// schema. Closing tags are found with shared.ts indexFrom, which stays linear over a whole scan.

/** What a reader made of the text at a position. */
export type Read<T> = { kind: 'ok'; value: T; end: number } | { kind: 'none'; skipTo?: number } | { kind: 'incomplete' };

export const READ_NONE: Read<never> = { kind: 'none' };
export const READ_INCOMPLETE: Read<never> = { kind: 'incomplete' };

/** `none` when the text is final, `incomplete` otherwise. */
export function ranOut(env: ScanEnv): Read<never> {
  return env.final ? READ_NONE : READ_INCOMPLETE;
}

const NAME_CHAR = /[\w.:-]/;
const MAX_NAME = 256;

/**
 * Reads a bare tool name at `from` (letters, digits, `_ . : -`). Returns where it ends, or
 * 'incomplete' when the text stops inside it. Longer runs than any tool name are not names.
 */
export function readBareName(text: string, from: number, env: ScanEnv): { name: string; end: number } | 'incomplete' | undefined {
  let end = from;
  while (end < text.length && end - from <= MAX_NAME && NAME_CHAR.test(text[end])) end++;
  if (end - from > MAX_NAME) return undefined;
  if (end >= text.length && !env.final) return 'incomplete';
  return end > from ? { name: text.slice(from, end), end } : undefined;
}

/** Reads `name="value"` (or single quotes) at `from`, after optional spaces. */
export function readQuotedAttribute(text: string, from: number, attribute: string, env: ScanEnv): Read<string> {
  let at = from;
  while (text[at] === ' ' || text[at] === '\t' || text[at] === '\n') at++;
  const head = `${attribute}=`;
  if (at + head.length >= text.length) return `${head}"`.startsWith(text.slice(at)) || `${head}'`.startsWith(text.slice(at)) ? ranOut(env) : READ_NONE;
  const quote = text[at + head.length];
  if (!text.startsWith(head, at) || (quote !== '"' && quote !== "'")) return READ_NONE;
  const valueStart = at + head.length + 1;
  let close = valueStart;
  while (close < text.length && close - valueStart <= MAX_NAME && text[close] !== quote && text[close] !== '\n' && text[close] !== '<') close++;
  if (close >= text.length) return ranOut(env);
  if (text[close] !== quote) return READ_NONE;
  return { kind: 'ok', value: text.slice(valueStart, close), end: close + 1 };
}

/** Drops one newline after the opening tag and one before the closing tag (templates put them there). */
export function trimNewlines(value: string): string {
  let v = value.startsWith('\r\n') ? value.slice(2) : value.startsWith('\n') ? value.slice(1) : value;
  v = v.endsWith('\r\n') ? v.slice(0, -2) : v.endsWith('\n') ? v.slice(0, -1) : v;
  return v;
}

/** Types each text value from the tool's declared schema; strings and undeclared parameters stay text. */
export function typedArguments(pairs: ReadonlyArray<readonly [string, string]>, toolName: string, ctx: ParseContext): Record<string, unknown> {
  const schema = ctx.tools.get(toolName)?.function.parameters;
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
  const args: Record<string, unknown> = {};
  for (const [key, raw] of pairs) args[key] = typeValue(raw, Object.hasOwn(properties, key) ? properties[key] : undefined, ctx.repairBudget);
  return args;
}
