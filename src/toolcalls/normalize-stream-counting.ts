import type { ChatChunk } from '../api/chat-types.js';
import { createReport, type StreamNormalizer } from './normalize-shared.js';

// The stream normalizer when no tools were declared and reasoning stays in content
// (createStreamNormalizer picks it): every chunk goes out as it is.

/** No tools declared: pass everything through, only noting native calls. */
export class CountingNormalizer implements StreamNormalizer {
  readonly report = createReport();

  push(chunk: ChatChunk, out: ChatChunk[]): void {
    this.note(chunk);
    out.push(chunk);
  }

  pushAll(batch: ChatChunk[]): ChatChunk[] {
    for (const chunk of batch) this.note(chunk);
    return batch;
  }

  private note(chunk: ChatChunk): void {
    for (const choice of chunk.choices) {
      for (const delta of choice.delta.tool_calls ?? []) {
        if (delta.id !== undefined || delta.function?.name !== undefined) {
          this.report.mode = 'native';
          this.report.toolCalls++;
        }
      }
    }
  }

  end(): void {
    // nothing held back
  }
}
