// The incident, reproduced: an agent summarizing a long file reads it in chunks. Its client
// (1) sends tool outputs as `{call_id, output}` without `"type": "function_call_output"` and
// (2) rebuilds every request from the original prompt plus only the latest call and output.
// The emulated model finishes only when every chunk is visible in the current turn; otherwise it
// reads the first line it has not seen, so a client that loses history reads the file forever.
import OpenAI from 'openai';
import type { Script } from '../emulators/openai-script.js';
import type { ResponsesScript } from './emulator-responses.js';

export const FILE_LINES = 600;
export const CHUNK = 250;
export const FILE_PATH = '/data/report.txt';
export const PROMPT = `Summarize the file ${FILE_PATH}. It is long: read it in chunks with read_file.`;

export const READ_FILE_TOOL = {
  type: 'function' as const,
  name: 'read_file',
  description: 'Read up to 250 lines of a text file, starting at start_line (1-based).',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, start_line: { type: 'integer' }, max_lines: { type: 'integer' } },
    required: ['path', 'start_line', 'max_lines'],
    additionalProperties: false,
  },
  strict: true,
};

/** The tool: "lines A-B of 600" header, then the lines. */
export function readFile(args: { start_line: number; max_lines: number }): string {
  const start = Math.max(1, args.start_line);
  const end = Math.min(FILE_LINES, start + Math.min(CHUNK, args.max_lines) - 1);
  const lines: string[] = [];
  for (let n = start; n <= end; n++) lines.push(`line ${n}: quarterly figure ${n * 7}`);
  return `lines ${start}-${end} of ${FILE_LINES}\n${lines.join('\n')}`;
}

/** What the model does given the tool outputs it can see: read the first unseen line, or summarize. */
export function decide(outputs: readonly string[]): { read: number } | { summary: string } {
  const seen = new Set<number>();
  for (const output of outputs) {
    const m = /^lines (\d+)-(\d+) of/.exec(output);
    if (m) for (let n = Number(m[1]); n <= Number(m[2]); n++) seen.add(n);
  }
  for (let n = 1; n <= FILE_LINES; n++) if (!seen.has(n)) return { read: n };
  return { summary: `Summary: all ${FILE_LINES} lines read in ${outputs.length} chunks; figures rise steadily.` };
}

const callArgs = (start: number): Record<string, unknown> => ({ path: FILE_PATH, start_line: start, max_lines: CHUNK });

/** The model behind the native (Responses) emulator: sees outputs after the last user message. */
export const responsesModel: ResponsesScript = ({ items }) => {
  let start = items.length;
  while (start > 0 && !(items[start - 1].type === 'message' && items[start - 1].role === 'user')) start--;
  const outputs = items.slice(start).filter((i) => i.type === 'function_call_output').map((i) => String(i.output));
  const next = decide(outputs);
  return 'read' in next ? { toolCalls: [{ name: 'read_file', arguments: callArgs(next.read) }] } : { text: next.summary };
};

/** The same model behind the chat emulator (the Hugging Face upstream, bridged). */
export const chatModel: Script = (body) => {
  const messages = body.messages;
  let start = messages.length;
  while (start > 0 && messages[start - 1].role !== 'user') start--;
  const outputs = messages.slice(start).filter((m) => m.role === 'tool').map((m) => String(m.content));
  const next = decide(outputs);
  return 'read' in next ? { toolCalls: [{ name: 'read_file', arguments: callArgs(next.read) }] } : { text: next.summary };
};

export interface IncidentRun {
  answer: string | null;
  toolRounds: number;
  requests: number;
  /** Start lines of every read, in order. */
  reads: number[];
  headers: Array<string | null>;
}

/** The broken client. Stops at `maxRounds` requests (the loop guard the real agent lacked). */
export async function runIncidentClient(baseURL: string, model: string, options: { stream?: boolean; maxRounds?: number } = {}): Promise<IncidentRun> {
  const client = new OpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const prompt = { role: 'user', content: PROMPT };
  let latest: unknown[] = [];
  const run: IncidentRun = { answer: null, toolRounds: 0, requests: 0, reads: [], headers: [] };
  for (let round = 0; round < (options.maxRounds ?? 8); round++) {
    const body = { model, input: [prompt, ...latest], tools: [READ_FILE_TOOL] } as any;
    run.requests++;
    let output: any[];
    if (options.stream) {
      const { data: stream, response: raw } = await client.responses.create({ ...body, stream: true }).withResponse();
      run.headers.push(raw.headers.get('x-toolgate-repairs'));
      let final: any = null;
      for await (const event of stream as unknown as AsyncIterable<any>) if (event.type === 'response.completed') final = event.response;
      output = final.output;
    } else {
      const { data, response: raw } = await client.responses.create(body).withResponse();
      run.headers.push(raw.headers.get('x-toolgate-repairs'));
      output = (data as any).output;
    }
    const calls = output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) {
      run.answer = output.filter((i) => i.type === 'message').map((i) => i.content.map((p: any) => p.text).join('')).join('');
      return run;
    }
    run.toolRounds++;
    // The bug: only the latest call and its output, the output without its type.
    latest = [];
    for (const call of calls) {
      const args = JSON.parse(call.arguments);
      run.reads.push(args.start_line);
      latest.push(call, { call_id: call.call_id, output: readFile(args) });
    }
  }
  return run;
}
