import { isRecord } from '../is-record.js';

// OpenAI custom tools on chat: declared as `{type: "custom", custom: {name, description, format}}`,
// called as `{id, type: "custom", custom: {name, input}}` (free text, or text in the tool's grammar:
// no JSON arguments, no schema). Every step reads them as the calls they are and leaves them as
// the client and the upstream wrote them: their names are not aliased or encoded, their input is
// not repaired or checked.

/** A custom-tool call (or a streamed delta of one). */
export function isCustomCall(call: unknown): boolean {
  return isRecord(call) && (call.type === 'custom' || (call.type === undefined && call.function === undefined && isRecord(call.custom)));
}

/** The name a custom-tool call (or delta) carries, '' when none. */
export function customCallName(call: unknown): string {
  const custom = isRecord(call) ? call.custom : undefined;
  return isRecord(custom) && typeof custom.name === 'string' ? custom.name : '';
}

/** The input a custom-tool call (or delta) carries, '' when none. */
export function customCallInput(call: unknown): string {
  const custom = isRecord(call) ? call.custom : undefined;
  return isRecord(custom) && typeof custom.input === 'string' ? custom.input : '';
}

/** The name of a declared custom tool; undefined for any other tool. */
export function customToolName(tool: unknown): string | undefined {
  if (!isRecord(tool) || tool.type !== 'custom' || !isRecord(tool.custom)) return undefined;
  return typeof tool.custom.name === 'string' && tool.custom.name !== '' ? tool.custom.name : undefined;
}
