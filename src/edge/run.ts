import type { ChatChunk, RawChatRequest } from '../api/chat-types.js';
import { errors, isGatewayError } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { runChat, type ChatCallInput } from '../pipeline/chat.js';
import { logAdvisory } from '../pipeline/repair-step.js';
import { summarizeFindings, summarizeWarnings } from '../repair/index.js';
import type { Finding } from '../repair/types.js';
import { classifyFailure, logFailure } from '../resilience/index.js';
import { mergeRepairHeaders } from './repair-headers.js';
import type { EdgeDialect, EdgeResult } from './types.js';

// The edge runner: a request already translated to chat goes down the one chat path (repair,
// routing, text calls, names, ids, ledger, metrics, budgets come with it) and its answer comes
// back in the dialect. The dialect's own repairs are counted and reported like the chat ones.

/** The dialect repair findings, in the same header, metric, log and journal as the chat passes. */
export interface DialectRepairs {
  header?: string;
  warnings?: string;
}

export function noteDialectRepairs(findings: readonly Finding[], before: readonly unknown[], after: readonly unknown[], input: ChatCallInput, gateway: Gateway): DialectRepairs {
  input.info.repaired({ target: 'messages', findings, before, after });
  if (findings.length === 0) return {};
  gateway.metrics.repairs(findings);
  input.log.debug({ findings }, 'request repaired in its dialect');
  const warnings = summarizeWarnings(findings);
  if (warnings) logAdvisory(input.log, warnings, findings);
  return { header: summarizeFindings(findings), warnings };
}

export async function runEdge<Answer, Event>(chat: RawChatRequest, dialect: EdgeDialect<Answer, Event>, input: ChatCallInput, gateway: Gateway, repairs: DialectRepairs = {}): Promise<EdgeResult<Answer>> {
  const result = await runChat(chat, input, gateway);
  const headers: Record<string, string> = { ...result.headers };
  const repairsHeader = mergeRepairHeaders(repairs.header, result.headers['x-toolgate-repairs']);
  const warnings = mergeRepairHeaders(repairs.warnings, result.headers['x-toolgate-warnings']);
  if (repairsHeader) headers['x-toolgate-repairs'] = repairsHeader;
  if (warnings) headers['x-toolgate-warnings'] = warnings;
  input.info.repairHeaders(repairsHeader, warnings);
  if (result.kind === 'json') return { kind: 'json', answer: await dialect.answer(result.completion), headers };
  return { kind: 'stream', frames: streamFrames(result.chunks, dialect, input, gateway.auth.redact), headers };
}

async function* streamFrames<Answer, Event>(chunks: AsyncIterable<ChatChunk>, dialect: EdgeDialect<Answer, Event>, input: ChatCallInput, redact: (text: string) => string): AsyncGenerator<string> {
  const synth = dialect.events();
  let frames = '';
  for (const event of synth.start()) frames += dialect.frame(event);
  yield frames;
  try {
    for await (const chunk of chunks) {
      frames = '';
      for (const event of synth.feed(chunk)) frames += dialect.frame(event);
      if (frames !== '') yield frames;
    }
  } catch (error) {
    if (classifyFailure(error, input.signal).row === 'client_aborted') return;
    const mapped = isGatewayError(error) ? error : errors.internal();
    input.info.failed(mapped.message);
    logFailure(input.log, error, input.signal, `${dialect.name} stream ended with an error`);
    frames = '';
    // Upstreams may quote the key they got, as in the app's error handler.
    for (const event of synth.fail(mapped, redact(mapped.message))) frames += dialect.frame(event);
    yield frames;
    return;
  }
  frames = '';
  for (const event of synth.end()) frames += dialect.frame(event);
  if (synth.settle) {
    yield frames;
    frames = '';
    for (const event of await synth.settle()) frames += dialect.frame(event);
  }
  yield frames;
}
