import { readFileSync } from 'node:fs';
import { startRawUpstream, type RawUpstream } from './raw-upstream.js';

// A recorded provider answer (test/fixtures/recorded/) served as the upstream: the recorded bytes,
// unchanged, whatever the request, as JSON or as an event stream. One server for many recordings:
// `play(file)` chooses what the next requests get; `pieces` splits a stream into that many writes
// (one per turn of the event loop), at byte offsets that may fall inside a line or a character.

export interface RecordedEntry {
  provider: string;
  file: string;
  kind: 'sse' | 'json';
  via?: 'openai' | 'openai-compatible' | 'gemini';
  source: { repository: string; path: string; commit: string; licence: string };
  conversion: string;
  note?: string;
  expect: { text: string; reasoning: string; calls: Array<{ name: string; args: unknown }>; finish: string };
}

/** A recorded OpenAI Responses answer (openai-responses/index.json): what `POST /v1/responses` said. */
export interface RecordedResponsesEntry {
  provider: string;
  file: string;
  kind: 'sse' | 'json';
  source: RecordedEntry['source'];
  conversion: string;
  note?: string;
  /** The output text, the reasoning summary text, each function_call's name and parsed arguments, the status. */
  expect: { text: string; summary: string; calls: Array<{ name: string; args: unknown }>; status: string };
}

export const RECORDED_DIR = new URL('../fixtures/recorded/', import.meta.url);

export function recordedIndex(): RecordedEntry[] {
  return JSON.parse(readFileSync(new URL('index.json', RECORDED_DIR), 'utf8')) as RecordedEntry[];
}

/** The Responses recordings, their files named from RECORDED_DIR (`openai-responses/<name>`). */
export function recordedResponsesIndex(): RecordedResponsesEntry[] {
  const entries = JSON.parse(readFileSync(new URL('openai-responses/index.json', RECORDED_DIR), 'utf8')) as RecordedResponsesEntry[];
  return entries.map((entry) => ({ ...entry, file: `openai-responses/${entry.file}` }));
}

export interface RecordedUpstream extends RawUpstream {
  /** Serve this recording from now on, in `pieces` writes. */
  play(entry: Pick<RecordedEntry, 'file' | 'kind'>, pieces?: number): void;
  /** The path and body of the last request (to check what toolgate asked for). */
  last: { path: string; body: string };
}

export async function startRecordedUpstream(): Promise<RecordedUpstream> {
  let current: { body: Buffer; kind: 'sse' | 'json'; pieces: number } = { body: Buffer.alloc(0), kind: 'json', pieces: 1 };
  const last = { path: '', body: '' };
  const raw = await startRawUpstream((req, res, body) => {
    last.path = req.url ?? '';
    last.body = body;
    const { body: bytes, kind, pieces } = current;
    res.writeHead(200, { 'content-type': kind === 'sse' ? 'text/event-stream' : 'application/json' });
    const cuts = Array.from({ length: pieces - 1 }, (_, i) => Math.floor(((i + 1) * bytes.length) / pieces) + (i % 3));
    let at = 0;
    const next = (): void => {
      const cut = cuts.shift();
      if (cut === undefined || cut >= bytes.length) {
        res.end(bytes.subarray(at));
        return;
      }
      res.write(bytes.subarray(at, cut));
      at = cut;
      setImmediate(next);
    };
    next();
  });
  return Object.assign(raw, {
    last,
    play(entry: Pick<RecordedEntry, 'file' | 'kind'>, pieces = 1) {
      current = { body: readFileSync(new URL(entry.file, RECORDED_DIR)), kind: entry.kind, pieces };
    },
  });
}
