import type { ChatChunk } from '../api/chat-types.js';
import { runEdge } from '../edge/run.js';
import type { EdgeDialect, EventSynthesizer } from '../edge/types.js';
import { GatewayError } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { sseEvent } from '../http/sse.js';
import { targetFor, type ChatCallInput } from '../pipeline/request-info.js';
import { summarizeWarnings } from '../repair/index.js';
import { bridgeTools } from './bridge-tools.js';
import { ResponseEventSynthesizer, type StreamEvent } from './events.js';
import { baseResponse, responseFromCompletion, type DeclaredTools } from './from-chat.js';
import { newId } from './ids.js';
import { mergeRepairHeaders } from '../edge/repair-headers.js';
import { persist, type CreateResult, type Prepared } from './prepared.js';
import { toChatRequest } from './to-chat.js';
import type { ResponseObject } from '../api/responses-types.js';

// Every upstream without a native /responses, on the edge shape (src/edge/): translate to chat,
// run the one chat path (repair, routing, text tool-call parsing, aliasing, ids, ledger, metrics
// come with it), translate back as a response or its events; stored before the client has it.

export async function bridgeCreate(prepared: Prepared, input: ChatCallInput, gateway: Gateway): Promise<CreateResult> {
  const { request } = prepared;
  const provider = targetFor(request.model, input, gateway.router).provider.settings.name;
  // Namespaced and custom tools become functions, tools only OpenAI runs are left out (a warning).
  const tools = bridgeTools(request.tools ?? [], provider);
  const chat = toChatRequest(request, [...prepared.previous, ...prepared.items], { provider, tools });
  if (tools.findings.length > 0) {
    gateway.metrics.repairs(tools.findings);
    input.log.info({ findings: tools.findings }, 'responses tools left out of the bridged request');
  }
  const warnings = mergeRepairHeaders(prepared.warningsHeader, summarizeWarnings(tools.findings));
  const base = baseResponse(request, newId('resp'), Math.floor(Date.now() / 1000), request.previous_response_id);
  const store = (response: ResponseObject): Promise<void> => persist(gateway, prepared, response, input.log);
  const result = await runEdge(chat, responsesDialect(base, store, tools.byChatName), input, gateway, { header: prepared.repairsHeader, warnings });
  return result.kind === 'json' ? { kind: 'json', response: result.answer, headers: result.headers } : result;
}

function responsesDialect(base: ResponseObject, store: (response: ResponseObject) => Promise<void>, declared: DeclaredTools): EdgeDialect<ResponseObject, StreamEvent> {
  return {
    name: 'responses',
    answer: async (completion) => {
      const response = responseFromCompletion(base, completion, undefined, declared);
      await store(response);
      return response;
    },
    events: () => new StoredResponseEvents(new ResponseEventSynthesizer(base, declared), store),
    frame: (event) => sseEvent(event.type, JSON.stringify(event)),
  };
}

/** The Responses events on the edge shape; the response is stored before the terminal event (a client may chain previous_response_id the moment it arrives). */
class StoredResponseEvents implements EventSynthesizer<StreamEvent> {
  private response: ResponseObject | undefined;

  constructor(
    private readonly synth: ResponseEventSynthesizer,
    private readonly store: (response: ResponseObject) => Promise<void>,
  ) {}

  start(): StreamEvent[] {
    return this.synth.start();
  }

  feed(chunk: ChatChunk): StreamEvent[] {
    return this.synth.feed(chunk);
  }

  end(): StreamEvent[] {
    const { response, events } = this.synth.end();
    this.response = response;
    return events;
  }

  async settle(): Promise<StreamEvent[]> {
    const response = this.response as ResponseObject;
    await this.store(response);
    return [this.synth.terminal(response)];
  }

  fail(error: GatewayError, message: string): StreamEvent[] {
    return this.synth.fail(new GatewayError(error.status, error.type, message, { param: error.param, code: error.code })).events;
  }
}
