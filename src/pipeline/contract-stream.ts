import type { AssistantMessage, ChatChunk, ChatRequest } from '../api/chat-types.js';
import { judgeMessage, type ArgumentsRepair, type Violation } from '../contract/index.js';
import { RepeatGuard } from '../contract/repeat-guard.js';
import { StreamHold } from '../contract/stream-hold.js';
import { ITERATION_DONE } from '../providers/chunk-batches.js';
import { createReport, type NormalizeReport, type StreamNormalizer } from '../toolcalls/normalize-shared.js';
import { createStreamNormalizer } from '../toolcalls/normalize-stream.js';
import { toLegacyChunks } from '../toolcalls/normalize-stream-pieces.js';
import { staged, type BatchStage } from './batch-stage.js';
import type { ContractRun } from './contract-run.js';
import type { UpstreamTextKeeper } from './request-info.js';
import type { UpstreamCall } from './upstream-step.js';

// The contract on a stream (docs/contract.md): each attempt's chunks are normalized, then go
// through a StreamHold (content on at once, calls held until the answer is complete), then a
// RepeatGuard (a re-ask's content that repeats what the client has seen is not sent again). At the end
// of an attempt its answer is judged: kept, the held calls are released; broken and the policy
// allows, the same model is asked again and its chunks continue the same client stream; else
// the calls are released with a `toolgate_warnings` field on the chunk that carries the finish
// reason, or under the strict policy (`error`) the contract error ends the stream (an error event).
// One stream, one [DONE].

type StreamCall = UpstreamCall & { kind: 'stream' };

/** The normalizer of the attempt that answers last: its report is the answer's (read by the recording stage at the end). */
export class LastAttemptReport implements StreamNormalizer {
  current: StreamNormalizer | undefined;

  get report(): NormalizeReport {
    return this.current?.report ?? EMPTY_REPORT;
  }

  push(chunk: ChatChunk, out: ChatChunk[]): void {
    out.push(chunk);
  }

  pushAll(batch: ChatChunk[]): ChatChunk[] {
    return batch;
  }

  end(): void {}
}

const EMPTY_REPORT = createReport();

export class ContractedStream implements AsyncIterableIterator<ChatChunk[]> {
  private source!: AsyncIterator<ChatChunk[]>;
  private hold!: StreamHold;
  /** A re-ask's content that repeats what the client has seen is not sent again. */
  private readonly guard = new RepeatGuard();
  private started = performance.now();
  private id: string | undefined;
  private over = false;
  /** A legacy `functions` client: the answer is judged as tool_calls, and goes out as `function_call`. */
  private legacy = false;

  constructor(
    private readonly run: ContractRun,
    first: StreamCall,
    firstStarted: number,
    private readonly reports: LastAttemptReport,
    private readonly askAgain: (request: ChatRequest) => Promise<StreamCall>,
    /** With the inspector on: a keeper of each attempt's own upstream text (the last attempt's is the one kept). */
    private readonly keeperFor?: () => UpstreamTextKeeper,
  ) {
    this.begin(first);
    this.started = firstStarted;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChatChunk[]> {
    return this;
  }

  async next(): Promise<IteratorResult<ChatChunk[]>> {
    while (!this.over) {
      let read: IteratorResult<ChatChunk[]>;
      try {
        read = await this.source.next();
      } catch (error) {
        this.over = true;
        throw error;
      }
      if (!read.done) {
        const out = this.sameId(this.guard.pass(this.hold.pushAll(read.value)));
        if (out.length > 0) return { done: false, value: out };
        continue;
      }
      const released = await this.attemptEnded();
      if (released.length > 0) return { done: false, value: released };
    }
    return ITERATION_DONE;
  }

  async return(): Promise<IteratorResult<ChatChunk[]>> {
    const running = !this.over;
    this.over = true;
    if (running) await this.source.return?.();
    return ITERATION_DONE;
  }

  /** Judges the attempt that just ended: releases what it held, asks again, or ends the stream. */
  private async attemptEnded(): Promise<ChatChunk[]> {
    const { run, hold } = this;
    const answers = hold.messages();
    // A cut-off answer says so itself (its finish_reason): released as it is, not judged as whole.
    if (hold.cutOff()) {
      this.over = true;
      return this.sameId(hold.release(answers));
    }
    const judged = new Map<number, AssistantMessage>();
    const violations: Violation[] = [];
    const repairs: ArgumentsRepair[] = [];
    let trimmed = 0;
    for (const [index, message] of answers) {
      const verdict = judgeMessage(run.terms, undefined, message, run.budget, run.trimExtra);
      judged.set(index, verdict.message);
      trimmed += verdict.trimmed;
      repairs.push(...verdict.repairs);
      for (const violation of verdict.violations) violations.push(answers.size > 1 ? { ...violation, message: `choice ${index}: ${violation.message}` } : violation);
    }
    if (violations.length === 0) {
      run.complied(trimmed);
      this.over = true;
      return this.sameId(hold.release(judged, run.trimWarning(), run.handedOn(repairs)));
    }
    if (run.violated(violations, hold.usage ?? undefined, trimmed, performance.now() - this.started)) {
      const answer = answers.get(0) ?? { role: 'assistant', content: null };
      try {
        this.started = performance.now();
        this.begin(await this.askAgain(run.reaskRequest(answer, violations)));
        this.guard.nextAttempt();
      } catch (error) {
        run.reaskFailed();
        this.over = true;
        throw error;
      }
      return [];
    }
    this.over = true;
    const warnings = run.passWarnings(violations);
    if (warnings === undefined) throw run.failure(violations);
    return this.sameId(hold.release(judged, [run.trimWarning(), warnings].filter(Boolean).join(','), run.handedOn(repairs)));
  }

  private begin(call: StreamCall): void {
    this.legacy = call.normalizeContext.legacyFunctions === true;
    const normalizer = createStreamNormalizer(this.legacy ? { ...call.normalizeContext, legacyFunctions: false } : call.normalizeContext);
    this.reports.current = normalizer;
    this.hold = new StreamHold();
    this.source = staged<ChatChunk>(call.batches, new NormalizeStage(normalizer, this.keeperFor?.()))[Symbol.asyncIterator]();
  }

  /** A re-ask's chunks carry the first answer's id: one stream, one completion id (and the legacy shape for a legacy client). */
  private sameId(judged: ChatChunk[]): ChatChunk[] {
    const chunks = this.legacy ? toLegacyChunks(judged) : judged;
    if (chunks.length === 0) return chunks;
    this.id ??= chunks[0].id;
    const id = this.id;
    return chunks.some((chunk) => chunk.id !== id) ? chunks.map((chunk) => (chunk.id === id ? chunk : { ...chunk, id })) : chunks;
  }
}

/** One attempt's normalization (the recording stage after the contract reads the result). */
class NormalizeStage implements BatchStage<ChatChunk> {
  constructor(
    private readonly normalizer: StreamNormalizer,
    private readonly keeper: UpstreamTextKeeper | undefined,
  ) {}

  batch(batch: ChatChunk[]): ChatChunk[] {
    this.keeper?.observe(batch);
    return this.normalizer.pushAll(batch);
  }

  closed(): void {
    this.keeper?.finish();
  }

  tail(): ChatChunk[] {
    const tail: ChatChunk[] = [];
    this.normalizer.end(tail);
    return tail;
  }

  finish(): Promise<void> {
    return Promise.resolve();
  }
}
