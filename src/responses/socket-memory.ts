import { randomBytes } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { createMemoryResponseStore, type ResponseStore, type StoredResponse } from '../state/response-store.js';
import type { Item } from '../api/responses-types.js';

// WebSocket mode keeps the responses of one socket in the socket's own memory: a `store: false`
// response is never written to the store, yet the next `response.create` on the same socket may
// continue it with previous_response_id (OpenAI's connection-local cache). The memory dies with
// the socket, is bounded in bytes, and a turn that fails forgets the response it continued.
//
// The socket's turns go down the HTTP route itself (routes/responses-socket.ts injects them), so
// the route finds the memory by a token header that only exists in-process: a random token per
// socket, honoured only on injected requests (never on one that came over the network).

export const SOCKET_MEMORY_HEADER = 'x-toolgate-socket-memory';

const sockets = new Map<string, SocketMemory>();

export interface SocketMemoryOptions {
  /** Most bytes the socket's memory holds; the oldest responses go first. */
  maxBytes: number;
  /** How long a response stays in it (the socket may live longer). */
  ttlMs: number;
}

export class SocketMemory {
  /** The in-process token the socket's injected requests carry. */
  readonly token = randomBytes(18).toString('base64url');
  private readonly store: ResponseStore;

  constructor(
    readonly scope: string,
    options: SocketMemoryOptions,
  ) {
    this.store = createMemoryResponseStore({ ttlMs: options.ttlMs, maxEntries: 1_000, maxBytes: options.maxBytes, maxEntryBytes: options.maxBytes }).forScope(scope);
    sockets.set(this.token, this);
  }

  /** Keeps a response that was not stored (store: false) for this socket's later turns. */
  keep(record: StoredResponse): Promise<void> {
    return this.store.put(record);
  }

  /** Forgets a response (a turn that continued it failed). */
  async evict(id: string): Promise<void> {
    await this.store.delete(id);
  }

  /** The caller's store seen through this socket: its own responses first, then the store. */
  over(base: ResponseStore): ResponseStore {
    return layered(this.store, base);
  }

  close(): void {
    sockets.delete(this.token);
    void this.store.close?.();
  }
}

/** The socket memory of a request injected by the WebSocket door; undefined for every other request. */
export function socketMemoryOf(request: FastifyRequest): SocketMemory | undefined {
  const token = request.headers[SOCKET_MEMORY_HEADER];
  if (typeof token !== 'string') return undefined;
  // A request that came over the network is an IncomingMessage; injected ones are not.
  if (request.raw instanceof IncomingMessage) return undefined;
  return sockets.get(token);
}

/** Reads from `first`, then `second`; writes and deletes go to both (what `first` lacks is left alone). */
function layered(first: ResponseStore, second: ResponseStore): ResponseStore {
  const self: ResponseStore = {
    put: (record) => second.put(record),
    get: async (id) => (await first.get(id)) ?? second.get(id),
    async getMany(ids) {
      const found = await first.getMany(ids);
      const rest = ids.filter((id) => !found.has(id));
      if (rest.length > 0) for (const [id, record] of await second.getMany(rest)) found.set(id, record);
      return found;
    },
    async delete(id) {
      const [a, b] = await Promise.all([first.delete(id), second.delete(id)]);
      return a || b;
    },
    async getItems(ids) {
      const found = await first.getItems(ids);
      const rest = ids.filter((id) => !found.has(id));
      if (rest.length > 0) for (const [id, item] of await second.getItems(rest)) found.set(id, item as Item);
      return found;
    },
    async findCallResponses(callIds) {
      const found = await first.findCallResponses(callIds);
      const rest = callIds.filter((id) => !found.has(id));
      if (rest.length > 0) for (const [id, owner] of await second.findCallResponses(rest)) found.set(id, owner);
      return found;
    },
    forScope: () => self,
  };
  return self;
}
