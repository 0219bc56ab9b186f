import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AssistantMessage } from '../api/chat-types.js';
import { DEFAULT_LEDGER_MAX_ENTRY_BYTES } from '../ledger/memory.js';
import type { CallLedger, LedgerEntry, LedgerQuery, LedgerSnapshot } from '../ledger/types.js';
import { EntryCap, wireBytes, type StoreStats } from '../util/budget.js';
import { ANONYMOUS_SCOPE, redisScopePrefix } from '../util/scope.js';

// The call ledger on Redis, so a call emitted by one instance can be restored by another.
//
//   <prefix>ledger:c:<call id>      → entry id        (index by tool call id)
//   <prefix>ledger:p:<fingerprint>  → entry id        (index by conversation prefix)
//   <prefix>ledger:e:<entry id>     → hash: msg, fp, provider, model, createdAt,
//                                     and one field per call-meta value: "m\0<call id>\0<name>"
//
// record() MERGES into the entry that already holds any of its call ids (one Lua script, so
// concurrent writers cannot lose each other's fields), as the memory ledger does: call meta is
// added per call id and name (e.g. Gemini thought signatures recorded by the adapter before the
// pipeline records the answer); a record with a fingerprint also sets the message and the
// fingerprint (the later non-empty one wins), a record without one only adds its meta.
// Everything expires after ttlMs; a record over maxEntryBytes is not stored; the overall bound is
// Redis's own maxmemory policy. A gateway key's scope lives under `<prefix>t:<scope id>:`
// (see scope.ts); the anonymous scope keeps the plain layout above.

const RECORD = `
local entryPrefix, newId, ttl, nCalls = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local hasPrefix, msg, fp, msgEmpty = ARGV[5] == '1', ARGV[6], ARGV[7], ARGV[11] == '1'
local id = false
for i = 1, nCalls do
  local existing = redis.call('GET', KEYS[i])
  if existing and redis.call('EXISTS', entryPrefix .. existing) == 1 then id = existing break end
end
if not id then id = newId end
local entryKey = entryPrefix .. id
local fields = {}
-- A record without a fingerprint for calls already known only adds its call meta.
if id == newId or fp ~= '' then
  fields = {'provider', ARGV[8], 'model', ARGV[9], 'createdAt', ARGV[10]}
  if not msgEmpty or redis.call('HEXISTS', entryKey, 'msg') == 0 then table.insert(fields, 'msg') table.insert(fields, msg) end
  if fp ~= '' then table.insert(fields, 'fp') table.insert(fields, fp) end
end
for i = 12, #ARGV do table.insert(fields, ARGV[i]) end
if #fields > 0 then redis.call('HSET', entryKey, unpack(fields)) end
redis.call('PEXPIRE', entryKey, ttl)
for i = 1, nCalls do redis.call('SET', KEYS[i], id, 'PX', ttl) end
if hasPrefix then redis.call('SET', KEYS[nCalls + 1], id, 'PX', ttl) end
return id`;

const META = 'm\u0000';

export interface RedisLedgerOptions {
  prefix: string;
  ttlMs: number;
  /** A record larger than this (UTF-8 bytes of its message and call meta) is not stored. Default 1 MiB. */
  maxEntryBytes?: number;
  onOversize?: (bytes: number, limit: number) => void;
}

export class RedisLedger implements CallLedger {
  private readonly callKey: (id: string) => string;
  private readonly prefixKey: (fp: string) => string;
  private readonly entryPrefix: string;

  constructor(
    private readonly client: Redis,
    private readonly options: RedisLedgerOptions,
    private readonly scope = ANONYMOUS_SCOPE,
    private readonly cap = new EntryCap({ maxEntryBytes: options.maxEntryBytes ?? DEFAULT_LEDGER_MAX_ENTRY_BYTES, onOversize: options.onOversize }),
  ) {
    const prefix = redisScopePrefix(options.prefix, scope);
    this.callKey = (id) => `${prefix}ledger:c:${id}`;
    this.prefixKey = (fp) => `${prefix}ledger:p:${fp}`;
    this.entryPrefix = `${prefix}ledger:e:`;
  }

  forScope(scope: string): CallLedger {
    return scope === this.scope ? this : new RedisLedger(this.client, this.options, scope, this.cap);
  }

  stats(): StoreStats {
    return { rejected: this.cap.rejected };
  }

  async record(entry: LedgerEntry): Promise<void> {
    const callIds = [...new Set((entry.message.tool_calls ?? []).map((call) => call.id).filter((id) => typeof id === 'string' && id !== ''))];
    for (const id of Object.keys(entry.callMeta ?? {})) if (!callIds.includes(id)) callIds.push(id);
    const hasPrefix = entry.prefixFingerprint !== '';
    if (callIds.length === 0 && !hasPrefix) return;
    const keys = [...callIds.map(this.callKey), ...(hasPrefix ? [this.prefixKey(entry.prefixFingerprint)] : [])];
    const meta: string[] = [];
    for (const [callId, values] of Object.entries(entry.callMeta ?? {})) {
      for (const [name, value] of Object.entries(values)) {
        if (typeof value === 'string') meta.push(`${META}${callId}\u0000${name}`, value);
      }
    }
    const message = JSON.stringify(entry.message);
    if (!this.cap.admits(wireBytes([message, ...meta]))) return;
    await this.client.eval(
      RECORD,
      keys.length,
      ...keys,
      this.entryPrefix,
      randomUUID(),
      String(Math.max(1, Math.floor(this.options.ttlMs))),
      String(callIds.length),
      hasPrefix ? '1' : '0',
      message,
      entry.prefixFingerprint,
      entry.provider,
      entry.model,
      String(entry.createdAt),
      isEmptyMessage(entry.message) ? '1' : '0',
      ...meta,
    );
  }

  async lookup(query: LedgerQuery): Promise<LedgerSnapshot> {
    const byCallId = new Map<string, LedgerEntry>();
    const byPrefix = new Map<string, LedgerEntry>();
    const keys = [...query.callIds.map(this.callKey), ...query.prefixFingerprints.map(this.prefixKey)];
    if (keys.length === 0) return { byCallId, byPrefix };
    const ids = await this.client.mget(...keys);
    const unique = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
    if (unique.length === 0) return { byCallId, byPrefix };
    const pipeline = this.client.pipeline();
    for (const id of unique) pipeline.hgetall(this.entryPrefix + id);
    const results = (await pipeline.exec()) ?? [];
    const entries = new Map<string, LedgerEntry>();
    unique.forEach((id, index) => {
      const [error, hash] = results[index] ?? [null, null];
      if (error) throw error;
      const entry = toEntry(hash as Record<string, string> | null);
      if (entry) entries.set(id, entry);
    });
    ids.forEach((id, index) => {
      const entry = typeof id === 'string' ? entries.get(id) : undefined;
      if (!entry) return;
      if (index < query.callIds.length) byCallId.set(query.callIds[index], entry);
      else byPrefix.set(query.prefixFingerprints[index - query.callIds.length], entry);
    });
    return { byCallId, byPrefix };
  }
}

function isEmptyMessage(message: AssistantMessage): boolean {
  return (message.content ?? '') === '' && !message.tool_calls?.length;
}

function toEntry(hash: Record<string, string> | null): LedgerEntry | undefined {
  if (!hash || typeof hash.msg !== 'string') return undefined;
  let message: AssistantMessage;
  try {
    message = JSON.parse(hash.msg) as AssistantMessage;
  } catch {
    return undefined;
  }
  const callMeta: Record<string, Record<string, string>> = {};
  for (const [field, value] of Object.entries(hash)) {
    if (!field.startsWith(META)) continue;
    const split = field.indexOf('\u0000', META.length);
    if (split < 0) continue;
    const callId = field.slice(META.length, split);
    (callMeta[callId] ??= {})[field.slice(split + 1)] = value;
  }
  return {
    message,
    prefixFingerprint: hash.fp ?? '',
    provider: hash.provider ?? '',
    model: hash.model ?? '',
    createdAt: Number(hash.createdAt) || 0,
    ...(Object.keys(callMeta).length > 0 ? { callMeta } : {}),
  };
}
