import type { ChatMessage, ChatRequest, ToolCall } from '../src/api/chat-types.js';
import { ledgerQueryFor } from '../src/ledger/fingerprint.js';
import { EMPTY_SNAPSHOT } from '../src/ledger/types.js';
import { RepairBudget } from '../src/repair/bounded-json.js';
import { DEFAULT_REPAIR_OPTIONS, declaredToolsOf, repairRequest } from '../src/repair/index.js';
import type { RepairContext } from '../src/repair/types.js';
import { createNameResolver } from '../src/toolcalls/names.js';
import { parseToolCallsFromText } from '../src/toolcalls/parse.js';
import { ToolCallStreamExtractor } from '../src/toolcalls/stream-extractor.js';
import type { ParseContext } from '../src/toolcalls/types.js';
import { median, round } from './common.js';

// In-process micro-benchmarks of the two CPU-heavy pure parts of toolgate:
//   - repairRequest on a 500-message history with 100 tool calls (valid, and with defects);
//   - the text tool-call parser on a 20 KB answer, whole-text and streamed in token-sized deltas.
// Run standalone: node --import tsx bench/micro.ts [--quick] [--json]

export const BENCH_TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['city'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'get_time',
      description: 'Local time in a time zone.',
      parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'search_web',
      description: 'Search the web.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, max_results: { type: 'integer', minimum: 1, maximum: 20 } },
        required: ['query'],
      },
    },
  },
];

// ---------------------------------------------------------------- histories

export type HistoryVariant = 'valid' | 'broken';

/**
 * `size` messages with `calls` tool calls: tool rounds (assistant with 2 parallel calls, 2 results,
 * an answer) first, then plain chat turns. The broken variant injects, in different rounds, the
 * defects toolgate repairs: id-less results, arguments as objects / almost-JSON, duplicate call
 * ids, a missing result, content as parts, an assistant that lost its tool_calls.
 */
export function history(size: number, calls: number, variant: HistoryVariant): ChatRequest {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a careful assistant with tools.' }];
  let made = 0;
  let round = 0;
  while (messages.length < size) {
    const broken = variant === 'broken';
    const userText = `Question ${round}: what is the weather and the time in city ${round}?`;
    messages.push({ role: 'user', content: broken && round % 13 === 3 ? [{ type: 'text', text: userText }] : userText } as ChatMessage);
    if (made < calls && messages.length + 4 <= size) {
      const ids = [`call_${round}_w`, broken && round % 9 === 4 ? 'call_dup' : `call_${round}_t`];
      const weatherArgs: unknown =
        broken && round % 7 === 2 ? { city: `city ${round}` } : broken && round % 7 === 5 ? `{"city": "city ${round}",}` : `{"city":"city ${round}","unit":"celsius"}`;
      const toolCalls: ToolCall[] = [
        { id: ids[0], type: 'function', function: { name: 'get_weather', arguments: weatherArgs as string } },
        { id: ids[1], type: 'function', function: { name: 'get_time', arguments: `{"tz":"zone ${round}"}` } },
      ];
      const lostCalls = broken && round % 17 === 8;
      messages.push(lostCalls ? { role: 'assistant', content: 'Let me check.' } : { role: 'assistant', content: null, tool_calls: toolCalls });
      const noIds = broken && round % 5 === 1;
      messages.push({ role: 'tool', ...(noIds ? {} : { tool_call_id: ids[0] }), content: `Weather in city ${round}: ${round % 30}C` } as ChatMessage);
      if (!(broken && round % 11 === 6)) {
        messages.push({ role: 'tool', ...(noIds ? {} : { tool_call_id: ids[1] }), content: `Time in zone ${round}: ${round % 24}:00` } as ChatMessage);
      }
      made += 2;
    }
    messages.push({ role: 'assistant', content: `Answer ${round}: it is ${round % 30}C and ${round % 24}:00 there.` });
    round++;
  }
  const trimmed = messages.slice(0, size);
  return { model: 'bench', messages: trimmed, tools: BENCH_TOOLS };
}

export function countToolCalls(request: ChatRequest): number {
  return request.messages.reduce((n, m) => n + (Array.isArray(m.tool_calls) ? m.tool_calls.length : 0), 0);
}

// ---------------------------------------------------------------- timing

export interface Timing {
  /** Median over rounds of the mean time per call, µs. */
  medianUs: number;
  minUs: number;
  rounds: number;
  itersPerRound: number;
}

/** Calibrates a batch to ~roundMs, then times `rounds` batches. */
export function timeIt(fn: () => unknown, rounds: number, roundMs: number): Timing {
  const warmupEnd = performance.now() + roundMs;
  let calls = 0;
  while (performance.now() < warmupEnd || calls < 20) {
    fn();
    calls++;
  }
  const perCall = roundMs / calls;
  const iters = Math.max(5, Math.round(roundMs / perCall));
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < iters; i++) fn();
    results.push(((performance.now() - start) * 1000) / iters);
  }
  return { medianUs: round(median(results), 2), minUs: round(Math.min(...results), 2), rounds, itersPerRound: iters };
}

// ---------------------------------------------------------------- repair

export interface RepairBench {
  variant: HistoryVariant;
  messages: number;
  toolCalls: number;
  findings: number;
  findingKinds: Record<string, number>;
  changed: boolean;
  /** repairRequest alone (context built once, as repair-step does per request). */
  repairUs: Timing;
  /** What repair-step does per request without the ledger I/O: ledger query (fingerprints), declared tools, repairRequest. */
  stepUs: Timing;
}

export function benchRepair(variant: HistoryVariant, rounds: number, roundMs: number): RepairBench {
  const request = history(500, 100, variant);
  const repairBudget = new RepairBudget();
  const context: RepairContext = { declaredTools: declaredToolsOf(request), ledger: EMPTY_SNAPSHOT, options: DEFAULT_REPAIR_OPTIONS, repairBudget };
  const once = repairRequest(request, context);
  const kinds: Record<string, number> = {};
  for (const finding of once.findings) kinds[finding.kind] = (kinds[finding.kind] ?? 0) + 1;
  const repairUs = timeIt(() => repairRequest(request, context), rounds, roundMs);
  const stepUs = timeIt(() => {
    ledgerQueryFor(request);
    return repairRequest(request, { declaredTools: declaredToolsOf(request), ledger: EMPTY_SNAPSHOT, options: DEFAULT_REPAIR_OPTIONS, repairBudget });
  }, rounds, roundMs);
  return {
    variant,
    messages: request.messages.length,
    toolCalls: countToolCalls(request),
    findings: once.findings.length,
    findingKinds: kinds,
    changed: once.request !== request,
    repairUs,
    stepUs,
  };
}

// ---------------------------------------------------------------- parser

const WORDS = (
  'the model answered with a long explanation of the weather patterns in several cities and what they mean for travel ' +
  'plans this week including notes on wind humidity pressure and the name of each station (as reported) with [links] ' +
  'and a few numbers like 21.5 or 1013 hPa; then it summarised the findings: {mostly sunny} and mild'
).split(' ');

function prose(bytes: number, seed: number): string {
  let out = '';
  let i = seed;
  while (out.length < bytes) {
    out += WORDS[(i * 7 + (i >> 3)) % WORDS.length];
    i++;
    out += i % 17 === 0 ? '.\n\n' : i % 9 === 0 ? ', ' : ' ';
  }
  return out.slice(0, bytes);
}

const CALLS_PER_ANSWER = 8;

function callText(format: string, i: number): string {
  const city = `City ${i}`;
  switch (format) {
    case 'hermes':
      return `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}", "unit": "celsius"}}\n</tool_call>`;
    case 'mistral':
      return `[TOOL_CALLS]get_weather{"city": "${city}", "unit": "celsius"}`;
    case 'qwen3-coder':
      return `<tool_call>\n<function=get_weather>\n<parameter=city>\n${city}\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>`;
    default:
      return '';
  }
}

/** A ~20 KB answer: prose with CALLS_PER_ANSWER calls spread through it (none for "prose"). */
export function answerText(format: string, bytes = 20 * 1024): string {
  if (format === 'prose') return prose(bytes, 1);
  const calls = Array.from({ length: CALLS_PER_ANSWER }, (_, i) => callText(format, i));
  const callBytes = calls.reduce((n, c) => n + c.length + 2, 0);
  const per = Math.floor((bytes - callBytes) / CALLS_PER_ANSWER);
  return calls.map((call, i) => `${prose(per, i * 31)}\n${call}\n`).join('');
}

export interface ParserBench {
  format: string;
  bytes: number;
  calls: number;
  streamCalls: number;
  deltaChars: number;
  wholeMBs: number;
  streamMBs: number;
  wholeUs: Timing;
  streamUs: Timing;
}

export function parseContext(): ParseContext {
  const tools = declaredToolsOf({ model: 'bench', messages: [], tools: BENCH_TOOLS });
  const resolver = createNameResolver([...tools.keys()]);
  return { tools, resolveName: (name) => resolver(name)?.name ?? null, repairBudget: new RepairBudget() };
}

function streamParse(text: string, deltaChars: number, ctx: ParseContext): number {
  const extractor = new ToolCallStreamExtractor(ctx);
  let calls = 0;
  for (let at = 0; at < text.length; at += deltaChars) {
    for (const event of extractor.feed(text.slice(at, at + deltaChars))) if (event.type === 'call') calls++;
  }
  for (const event of extractor.end()) if (event.type === 'call') calls++;
  return calls;
}

export function benchParser(format: string, rounds: number, roundMs: number, deltaChars = 4): ParserBench {
  const ctx = parseContext();
  const text = answerText(format);
  const bytes = Buffer.byteLength(text);
  const calls = parseToolCallsFromText(text, ctx)?.calls.length ?? 0;
  const streamCalls = streamParse(text, deltaChars, ctx);
  const wholeUs = timeIt(() => parseToolCallsFromText(text, ctx), rounds, roundMs);
  const streamUs = timeIt(() => streamParse(text, deltaChars, ctx), rounds, roundMs);
  return {
    format,
    bytes,
    calls,
    streamCalls,
    deltaChars,
    wholeMBs: round(bytes / wholeUs.medianUs, 1), // bytes/µs = MB/s
    streamMBs: round(bytes / streamUs.medianUs, 1),
    wholeUs,
    streamUs,
  };
}

export const PARSER_FORMATS = ['hermes', 'mistral', 'qwen3-coder', 'prose'];

export interface MicroResults {
  repair: RepairBench[];
  parser: ParserBench[];
}

export function runMicro(quick: boolean): MicroResults {
  const rounds = quick ? 5 : 9;
  const roundMs = quick ? 100 : 250;
  return {
    repair: (['valid', 'broken'] as const).map((variant) => benchRepair(variant, rounds, roundMs)),
    parser: PARSER_FORMATS.map((format) => benchParser(format, rounds, roundMs)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = runMicro(process.argv.includes('--quick'));
  process.stdout.write(`${JSON.stringify(results, null, process.argv.includes('--json') ? 0 : 2)}\n`);
}
