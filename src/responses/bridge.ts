import type { ChatChunk } from '../api/chat-types.js';
import { errors, isGatewayError } from '../errors.js';
import { classifyFailure, logFailure } from '../resilience/index.js';
import type { Gateway } from '../gateway.js';
import { sseEvent } from '../http/sse.js';
import { runChat } from '../pipeline/chat.js';
import { targetFor, type ChatCallInput } from '../pipeline/request-info.js';
import { ResponseEventSynthesizer, type StreamEvent } from './events.js';
import { baseResponse, responseFromCompletion } from './from-chat.js';
import { newId } from './ids.js';
import { mergeRepairHeaders, persist, type CreateResult, type Prepared } from './prepared.js';
import { toChatRequest } from './to-chat.js';

// Every upstream without a native /responses: translate to chat, run the one chat path (repair,
// routing, text tool-call parsing, aliasing, ids, ledger, metrics come with it), translate back.

export async function bridgeCreate(prepared: Prepared, input: ChatCallInput, gateway: Gateway): Promise<CreateResult> {
  const { request } = prepared;
  const provider = targetFor(request.model, input, gateway.router).provider.settings.name;
  const chat = toChatRequest(request, [...prepared.previous, ...prepared.items], { provider });
  const base = baseResponse(request, newId('resp'), Math.floor(Date.now() / 1000), request.previous_response_id);
  const result = await runChat(chat, input, gateway);
  const repairs = mergeRepairHeaders(prepared.repairsHeader, result.headers['x-toolgate-repairs']);
  const headers: Record<string, string> = { ...result.headers };
  const warnings = mergeRepairHeaders(prepared.warningsHeader, result.headers['x-toolgate-warnings']);
  if (repairs) headers['x-toolgate-repairs'] = repairs;
  if (warnings) headers['x-toolgate-warnings'] = warnings;
  input.info.repairHeaders(repairs, warnings);

  if (result.kind === 'json') {
    const response = responseFromCompletion(base, result.completion);
    await persist(gateway, prepared, response, input.log);
    return { kind: 'json', response, headers };
  }
  return { kind: 'stream', frames: streamFrames(result.chunks, base, prepared, input, gateway), headers };
}

const frame = (event: StreamEvent): string => sseEvent(event.type, JSON.stringify(event));

async function* streamFrames(
  chunks: AsyncIterable<ChatChunk>,
  base: ReturnType<typeof baseResponse>,
  prepared: Prepared,
  input: ChatCallInput,
  gateway: Gateway,
): AsyncGenerator<string> {
  const synth = new ResponseEventSynthesizer(base);
  for (const event of synth.start()) yield frame(event);
  try {
    for await (const chunk of chunks) for (const event of synth.feed(chunk)) yield frame(event);
  } catch (error) {
    if (classifyFailure(error, input.signal).row === 'client_aborted') return;
    const mapped = isGatewayError(error) ? error : errors.internal();
    input.info.failed(mapped.message);
    logFailure(input.log, error, input.signal, 'responses stream ended with an error');
    for (const event of synth.fail(mapped).events) yield frame(event);
    return;
  }
  const { response, events } = synth.end();
  for (const event of events) yield frame(event);
  // Stored before the terminal event: a client may chain previous_response_id the moment it arrives.
  await persist(gateway, prepared, response, input.log);
  yield frame(synth.terminal(response));
}
