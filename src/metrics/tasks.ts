// Task tracking for toolgate_llm_calls_per_task. A task is one agent run: the LLM calls from the
// first user message to a final answer without tool calls. Every upstream call (retries and
// fallbacks included) adds 1; the count is observed when the task ends — at a final answer, after
// `idleMs` without a call, or when the map is full and the task is the least recently active.
import { hash as hashOnce, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ChatMessage } from '../api/chat-types.js';
import type { TaskEndReason } from './types.js';

export interface TaskKeyInput {
  /** The `x-toolgate-task-id` request header. */
  headerTaskId?: string | null;
  /** The OpenAI `user` field. */
  user?: unknown;
  /** The OpenAI `metadata` field (task_id / session_id / conversation_id / thread_id are used). */
  metadata?: unknown;
  messages: ReadonlyArray<Pick<ChatMessage, 'role' | 'content'>>;
  /** The tenant scope of the caller's gateway key (src/util/scope.ts); '' or absent: anonymous. */
  scope?: string;
}

const METADATA_TASK_FIELDS = [
  'task_id',
  'taskId',
  'session_id',
  'sessionId',
  'conversation_id',
  'conversationId',
  'thread_id',
  'threadId',
] as const;

const MAX_RAW_KEY = 128;

function digest(text: string): string {
  return hashOnce('sha256', text, 'base64url').slice(0, 22);
}

// Every turn of an agent run sends the same system prompt and first user message: their digest is
// remembered (a pure text → digest memo, bounded in entries and characters; long texts are not kept).
const MAX_MEMO_TEXT = 4096;
const fingerprintMemo = new LRUCache<string, string>({ max: 1000, maxSize: 1024 * 1024, sizeCalculation: (_digest, text) => text.length + 32 });

function fingerprintDigest(text: string): string {
  if (text.length > MAX_MEMO_TEXT) return digest(text);
  let known = fingerprintMemo.get(text);
  if (known === undefined) {
    known = digest(text);
    fingerprintMemo.set(text, known);
  }
  return known;
}

function idKey(prefix: string, value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string' || value.length === 0) return undefined;
  return value.length <= MAX_RAW_KEY ? `${prefix}:${value}` : `${prefix}#${digest(value)}`;
}

function contentText(message: Pick<ChatMessage, 'content'> | undefined): string {
  const content = message?.content;
  if (content === undefined || content === null) return '';
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/**
 * The task a request belongs to, most explicit first: the `x-toolgate-task-id` header, a task or
 * session id in `metadata`, the `user` field, else a fingerprint of the system prompt plus the
 * first user message (stable across the turns of one agent run). A request with neither a system
 * nor a user message gets a key of its own. Keys are per tenant scope: two gateway keys sending
 * the same task id, user or prompt count two tasks (one cannot end or inflate the other's).
 */
export function taskKeyFor(input: TaskKeyInput): string {
  const key = unscopedTaskKey(input);
  return input.scope ? `${input.scope}/${key}` : key;
}

function unscopedTaskKey(input: TaskKeyInput): string {
  const explicit = idKey('header', input.headerTaskId);
  if (explicit) return explicit;
  const metadata = input.metadata;
  if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) {
    const fields = metadata as Record<string, unknown>;
    for (const field of METADATA_TASK_FIELDS) {
      const key = idKey('metadata', fields[field]);
      if (key) return key;
    }
  }
  const user = idKey('user', input.user);
  if (user) return user;
  const system = input.messages.find((m) => m.role === 'system' || m.role === 'developer');
  const firstUser = input.messages.find((m) => m.role === 'user');
  if (!system && !firstUser) return `once:${randomUUID()}`;
  const systemText = contentText(system);
  const userText = contentText(firstUser);
  // The last pair's key: the next turn of the same run compares two strings, no text joined and hashed.
  const last = lastFingerprint;
  if (last !== undefined && last.system === systemText && last.user === userText) return last.key;
  const key = `fp:${fingerprintDigest(`${systemText}\u0000${userText}`)}`;
  lastFingerprint = systemText.length + userText.length <= MAX_MEMO_TEXT ? { system: systemText, user: userText, key } : undefined;
  return key;
}

let lastFingerprint: { system: string; user: string; key: string } | undefined;

export interface TaskTrackerOptions {
  idleMs: number;
  maxTasks: number;
  onEnd(calls: number, reason: TaskEndReason): void;
  now?: () => number;
}

interface Task {
  calls: number;
  lastCall: number;
}

/**
 * Bounded map of open tasks in least-recently-active order; one unref'd sweep timer. Bounded in
 * bytes too: at most maxTasks keys of at most ~180 characters (raw ids over 128 are digested).
 */
export class TaskTracker {
  private readonly tasks = new Map<string, Task>();
  /** The key inserted last (the Map's last entry), while it is in the Map. */
  private newest: string | undefined;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TaskTrackerOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Returns the task's call count so far. */
  call(key: string, calls = 1): number {
    const now = this.now();
    const task = this.tasks.get(key);
    if (task) {
      // Re-insert: Map order stays least recently active first. The most recent task is already
      // last: a delete + set would only leave a hole in the Map's table (rehashed as holes pile up).
      if (key !== this.newest) {
        this.tasks.delete(key);
        this.tasks.set(key, task);
        this.newest = key;
      }
      task.calls += calls;
      task.lastCall = now;
      return task.calls;
    }
    if (this.tasks.size >= this.options.maxTasks) this.evictOldest();
    this.tasks.set(key, { calls, lastCall: now });
    this.newest = key;
    this.startSweeper();
    return calls;
  }

  end(key: string): void {
    const task = this.tasks.get(key);
    if (!task) return;
    this.remove(key);
    this.options.onEnd(task.calls, 'final');
  }

  /** Ends every task idle for `idleMs` or more (the timer calls this; tests may too). */
  sweep(now = this.now()): void {
    for (const [key, task] of this.tasks) {
      if (now - task.lastCall < this.options.idleMs) break;
      this.remove(key);
      this.options.onEnd(task.calls, 'idle');
    }
    if (this.tasks.size === 0) this.stopSweeper();
  }

  close(): void {
    this.stopSweeper();
  }

  private evictOldest(): void {
    const oldest = this.tasks.entries().next();
    if (oldest.done) return;
    const [key, task] = oldest.value;
    this.remove(key);
    this.options.onEnd(task.calls, 'evicted');
  }

  private remove(key: string): void {
    this.tasks.delete(key);
    if (key === this.newest) this.newest = undefined;
  }

  private startSweeper(): void {
    if (this.timer) return;
    const every = Math.min(Math.max(Math.floor(this.options.idleMs / 4), 10), 60_000);
    this.timer = setInterval(() => this.sweep(), every);
    this.timer.unref();
  }

  private stopSweeper(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
