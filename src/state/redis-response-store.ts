import type { Redis } from 'ioredis';
import { DEFAULT_RESPONSES_MAX_ENTRY_BYTES, type ResponseStore, type StoredResponse } from './response-store.js';
import type { Item } from '../api/responses-types.js';
import { EntryCap, wireBytes, type StoreStats } from '../util/budget.js';
import { ANONYMOUS_SCOPE, redisScopePrefix } from '../util/scope.js';

// The Responses store on Redis, mapped one to one from the memory store:
//   <prefix>resp:<id>       → the stored record (JSON)
//   <prefix>item:<item id>  → hash {r: owning response id, i: item JSON}
//   <prefix>call:<call id>  → the response whose output holds that function call
//   <prefix>chain:<id>      → the ids of the responses before it (JSON), apart from the record so
//                             that reading a chain's records does not read every link's chain too
// all with the ledger TTL. Writes and deletes are Lua scripts, so an item index never points at
// half a response. Output items belong to their response (overwritten); echoed input items keep
// the first response that had them (set only when absent), as in memory.
//
// A gateway key's scope lives under `<prefix>t:<scope id>:` (see scope.ts); the anonymous scope
// keeps the plain layout above. A response whose record and items together are over
// maxEntryBytes is not stored (Redis's own bound is its maxmemory policy).

const PUT = `
local prefix, id, ttl = ARGV[1], ARGV[2], ARGV[3]
redis.call('SET', prefix .. 'resp:' .. id, ARGV[4], 'PX', ttl)
if ARGV[5] == '' then redis.call('DEL', prefix .. 'chain:' .. id)
else redis.call('SET', prefix .. 'chain:' .. id, ARGV[5], 'PX', ttl) end
local i = 6
for _ = 1, tonumber(ARGV[i]) do
  local key = prefix .. 'item:' .. ARGV[i + 1]
  redis.call('DEL', key)
  redis.call('HSET', key, 'r', id, 'i', ARGV[i + 2])
  redis.call('PEXPIRE', key, ttl)
  i = i + 2
end
i = i + 1
for _ = 1, tonumber(ARGV[i]) do
  local key = prefix .. 'item:' .. ARGV[i + 1]
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'r', id, 'i', ARGV[i + 2])
    redis.call('PEXPIRE', key, ttl)
  end
  i = i + 2
end
i = i + 1
for _ = 1, tonumber(ARGV[i]) do
  redis.call('SET', prefix .. 'call:' .. ARGV[i + 1], id, 'PX', ttl)
  i = i + 1
end
return 1`;

const DELETE = `
local prefix, id = ARGV[1], ARGV[2]
if redis.call('DEL', prefix .. 'resp:' .. id) == 0 then return 0 end
redis.call('DEL', prefix .. 'chain:' .. id)
local i = 3
for _ = 1, tonumber(ARGV[i]) do
  local key = prefix .. 'item:' .. ARGV[i + 1]
  if redis.call('HGET', key, 'r') == id then redis.call('DEL', key) end
  i = i + 1
end
i = i + 1
for _ = 1, tonumber(ARGV[i]) do
  local key = prefix .. 'call:' .. ARGV[i + 1]
  if redis.call('GET', key) == id then redis.call('DEL', key) end
  i = i + 1
end
return 1`;

export interface RedisResponseStoreOptions {
  prefix: string;
  ttlMs: number;
  /** A response larger than this (UTF-8 bytes sent: record and items) is not stored. Default 8 MiB. */
  maxEntryBytes?: number;
  onOversize?: (bytes: number, limit: number) => void;
}

export class RedisResponseStore implements ResponseStore {
  /** This view's key prefix: the configured prefix plus the scope's segment. */
  private readonly prefix: string;

  constructor(
    private readonly client: Redis,
    private readonly options: RedisResponseStoreOptions,
    private readonly scope = ANONYMOUS_SCOPE,
    private readonly cap = new EntryCap({ maxEntryBytes: options.maxEntryBytes ?? DEFAULT_RESPONSES_MAX_ENTRY_BYTES, onOversize: options.onOversize }),
  ) {
    this.prefix = redisScopePrefix(options.prefix, scope);
  }

  forScope(scope: string): ResponseStore {
    return scope === this.scope ? this : new RedisResponseStore(this.client, this.options, scope, this.cap);
  }

  stats(): StoreStats {
    return { rejected: this.cap.rejected };
  }

  async put(record: StoredResponse): Promise<void> {
    const id = record.response.id;
    const output: string[] = [];
    const calls: string[] = [];
    for (const item of record.response.output) {
      if (typeof item.id === 'string') output.push(item.id, JSON.stringify(item));
      if (item.type === 'function_call' && typeof item.call_id === 'string') calls.push(item.call_id);
    }
    const input: string[] = [];
    for (const item of record.input) if (typeof item.id === 'string') input.push(item.id, JSON.stringify(item));
    const { chain, ...rest } = record;
    const json = JSON.stringify(rest);
    const chainJson = chain === undefined ? '' : JSON.stringify(chain);
    if (!this.cap.admits(wireBytes([json, chainJson, ...output, ...input, ...calls]))) return;
    await this.client.eval(
      PUT,
      0,
      this.prefix,
      id,
      String(Math.max(1, Math.floor(this.options.ttlMs))),
      json,
      chainJson,
      String(output.length / 2),
      ...output,
      String(input.length / 2),
      ...input,
      String(calls.length),
      ...calls,
    );
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const [text, chain] = await this.client.mget(`${this.prefix}resp:${id}`, `${this.prefix}chain:${id}`);
    if (typeof text !== 'string') return undefined;
    const record = JSON.parse(text) as StoredResponse;
    if (typeof chain === 'string') record.chain = JSON.parse(chain) as string[];
    return record;
  }

  async getMany(ids: readonly string[]): Promise<Map<string, StoredResponse>> {
    const found = new Map<string, StoredResponse>();
    if (ids.length === 0) return found;
    const texts = await this.client.mget(...ids.map((id) => `${this.prefix}resp:${id}`));
    texts.forEach((text, index) => {
      if (typeof text === 'string') found.set(ids[index], JSON.parse(text) as StoredResponse);
    });
    return found;
  }

  async delete(id: string): Promise<boolean> {
    const record = await this.get(id);
    if (!record) return false;
    const items = [...record.response.output, ...record.input];
    const itemIds = items.map((item) => item.id).filter((itemId): itemId is string => typeof itemId === 'string');
    const callIds = items
      .filter((item) => item.type === 'function_call' && typeof item.call_id === 'string')
      .map((item) => item.call_id as string);
    const deleted = await this.client.eval(DELETE, 0, this.prefix, id, String(itemIds.length), ...itemIds, String(callIds.length), ...callIds);
    return Number(deleted) === 1;
  }

  async getItems(ids: readonly string[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    if (ids.length === 0) return found;
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.hget(`${this.prefix}item:${id}`, 'i');
    const results = (await pipeline.exec()) ?? [];
    ids.forEach((id, index) => {
      const [error, text] = results[index] ?? [null, null];
      if (error) throw error;
      if (typeof text === 'string') found.set(id, JSON.parse(text) as Item);
    });
    return found;
  }

  async findCallResponses(callIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (callIds.length === 0) return found;
    const ids = await this.client.mget(...callIds.map((callId) => `${this.prefix}call:${callId}`));
    ids.forEach((id, index) => {
      if (typeof id === 'string') found.set(callIds[index], id);
    });
    return found;
  }
}
