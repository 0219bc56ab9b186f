import { skipWhitespace } from '../text/json-scan.js';
import { defineFormat } from './define.js';
import { readCallSequence } from './json-calls.js';
import { INCOMPLETE, NONE, callsFromShapes, literalAt, outOfText } from './shared.js';
import type { ParseContext, ParsedCall } from '../types.js';
import { hermesFormat } from './hermes.js';
import type { BlockMatch, ScanEnv, ToolCallFormat } from './types.js';

// JSON tool calls inside a model's own wrapper tokens. One table, one reader: after the opener
// comes an object, an array, or several objects (one per line, or separated by `,`/`;`), each
// {"name": …, "arguments"|"parameters": …}; then the closer. A missing closer is tolerated once
// the JSON is complete (models stop early, and some wrappers have none).

interface JsonWrapper {
  /** Format name reported for the calls. */
  name: string;
  open: string;
  /** Closing token; absent when the wrapper has none. */
  close?: string;
  /** Tokens that may follow the calls and belong to the block (end-of-turn markers). */
  trailers?: readonly string[];
  /** The opener is a plain word (`functools`): it must not continue another word. */
  word?: boolean;
  /** Hermes <tool_call> blocks may stand inside instead of bare JSON. */
  hermesInside?: boolean;
}

export const JSON_WRAPPERS: readonly JsonWrapper[] = [
  // Jamba: <tool_calls>[{…}]</tool_calls>; MiniMax-M1: <tool_calls>\n{…}\n{…}\n</tool_calls>.
  { name: 'tool-calls-tag', open: '<tool_calls>', close: '</tool_calls>', hermesInside: true },
  // Llama-Nemotron: <TOOLCALL>[{…}]</TOOLCALL>.
  { name: 'nemotron', open: '<TOOLCALL>', close: '</TOOLCALL>' },
  { name: 'tools-tag', open: '<tools>', close: '</tools>' },
  // Granite 3.x: <|tool_call|>[{…}] (no closer).
  { name: 'granite', open: '<|tool_call|>', trailers: ['<|end_of_text|>'] },
  // Phi-4-mini: functools[{…}, …].
  { name: 'phi4', open: 'functools', word: true },
  { name: 'function-call-tag', open: '<function_call>', close: '</function_call>' },
  // LongCat-Flash: <longcat_tool_call>{…}</longcat_tool_call>.
  { name: 'longcat', open: '<longcat_tool_call>', close: '</longcat_tool_call>' },
  // InternLM2/2.5: <|action_start|><|plugin|>\n{"name": …, "parameters": …}<|action_end|>.
  { name: 'internlm', open: '<|action_start|><|plugin|>', close: '<|action_end|>' },
];

const WORD_CHAR = /[\w.]/;

function wrappedJsonFormat(wrapper: JsonWrapper): ToolCallFormat {
  return defineFormat({
    name: wrapper.name,
    triggers: wrapper.open[0],
    detect: (text) => text.includes(wrapper.open),
    matchAt(text, start, ctx, env): BlockMatch {
      if (wrapper.word && WORD_CHAR.test(env.prevChar)) return NONE;
      const open = literalAt(text, start, wrapper.open);
      if (open === 'no') return NONE;
      if (open === 'partial') return outOfText(env);
      const at = skipWhitespace(text, start + wrapper.open.length);
      if (at >= text.length) return outOfText(env);
      if (wrapper.hermesInside && text[at] === '<') return hermesBlocks(text, at, ctx, env, wrapper);
      if (text[at] !== '{' && text[at] !== '[') return NONE;
      const sequence = readCallSequence(text, at, env.final, false, ctx.repairBudget);
      if (sequence.kind === 'incomplete') return INCOMPLETE;
      if (sequence.kind === 'invalid') return NONE;
      const end = blockEnd(text, sequence.end, wrapper, env);
      if (end === 'incomplete') return INCOMPLETE;
      return callsFromShapes(sequence.shapes, ctx, end, end);
    },
  });
}

/** After the JSON: the closer (and end-of-turn trailers) belong to the block when present. */
function blockEnd(text: string, jsonEnd: number, wrapper: JsonWrapper, env: ScanEnv): number | 'incomplete' {
  let end = jsonEnd;
  for (const token of [...(wrapper.close ? [wrapper.close] : []), ...(wrapper.trailers ?? [])]) {
    const at = skipWhitespace(text, end);
    if (at >= text.length) return env.final ? end : 'incomplete';
    const found = literalAt(text, at, token);
    if (found === 'partial' && !env.final) return 'incomplete';
    if (found === 'yes') end = at + token.length;
  }
  return end;
}

/** <tool_calls><tool_call>{…}</tool_call>…</tool_calls>: the outer tags go with the inner calls. */
function hermesBlocks(text: string, from: number, ctx: ParseContext, env: ScanEnv, wrapper: JsonWrapper): BlockMatch {
  const calls: ParsedCall[] = [];
  let at = from;
  let end = from;
  for (;;) {
    const inner = hermesFormat.matchAt(text, at, ctx, env);
    if (inner.kind === 'incomplete') return INCOMPLETE;
    if (inner.kind !== 'calls') {
      // Undeclared names are counted when the scanner reaches the inner blocks on their own.
      if (calls.length === 0 || (inner.kind === 'none' && inner.rejectedNames)) return NONE;
      break;
    }
    calls.push(...inner.calls);
    end = inner.end;
    at = skipWhitespace(text, end);
    if (at >= text.length) {
      if (!env.final) return INCOMPLETE;
      break;
    }
  }
  const closed = blockEnd(text, end, wrapper, env);
  if (closed === 'incomplete') return INCOMPLETE;
  return { kind: 'calls', end: closed, calls };
}

/** One format per wrapper, in table order. */
export const jsonWrappedFormats: readonly ToolCallFormat[] = JSON_WRAPPERS.map(wrappedJsonFormat);
