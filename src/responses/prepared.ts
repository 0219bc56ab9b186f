import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Gateway } from '../pipeline/gateway.js';
import { idPrefixFor, newId } from './ids.js';
import type { SocketMemory } from './socket-memory.js';
import type { StoredResponse } from '../state/response-store.js';
import type { Item, ResponseObject, ResponsesRequest } from '../api/responses-types.js';

// What the create paths (native, bridge) share: the prepared request, their result, storing.

export interface Prepared {
  request: ResponsesRequest;
  /** This request's items: repaired, restored; references resolved on the bridge. */
  items: Item[];
  /** The resolved previous_response_id chain (bridge: sent before `items`; native: OpenAI has it). */
  previous: Item[];
  /** x-toolgate-repairs for the item-level findings. */
  repairsHeader?: string;
  /** x-toolgate-warnings for the item-level advisory findings (e.g. a turn not restored). */
  warningsHeader?: string;
  /** Set by the native path: what it stores is the upstream's own response. */
  native?: boolean;
  /** The tenant scope of the caller's gateway key: where the response is stored. */
  scope: string;
  /** The ids of the previous_response_id chain, oldest first, stored with the response (StoredResponse.chain). */
  chain?: string[];
  /** WebSocket mode: the socket's memory, which keeps a store: false response for the socket's next turns. */
  memory?: SocketMemory;
}

export type CreateResult =
  | { kind: 'json'; response: ResponseObject; headers: Record<string, string> }
  /** Ready SSE frames; errors after the start are already frames (an `error` event), never thrown. */
  | { kind: 'stream'; frames: AsyncIterable<string>; headers: Record<string, string> };

/**
 * Stores a finished response (store !== false; with store: false only a WebSocket's memory keeps it).
 * A store outage costs later lookups, not this answer.
 */
export async function persist(gateway: Gateway, prepared: Prepared, response: ResponseObject, log: Logger): Promise<void> {
  if (prepared.request.store === false && !prepared.memory) return;
  const record: StoredResponse = { response, input: withIds(prepared.items) };
  if (prepared.request.previous_response_id !== undefined) {
    record.previousResponseId = prepared.request.previous_response_id;
    record.chain = prepared.chain ?? [];
  }
  if (prepared.native) record.native = true;
  if (prepared.request.store === false) return prepared.memory?.keep(record);
  try {
    await gateway.responseStore.forScope(prepared.scope).put(record);
  } catch (error) {
    log.warn({ err: error, responseId: response.id }, 'response store write failed');
  }
}

/** Input items as input_items lists them: every item with an id. */
function withIds(items: readonly Item[]): Item[] {
  return items.map((item) => (typeof item.id === 'string' && item.id !== '' ? item : { ...item, id: newId(idPrefixFor(item.type)) }));
}
