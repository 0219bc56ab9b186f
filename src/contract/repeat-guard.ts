import { mapBatch } from '../util/batch.js';
import type { ChatChunk, ChunkChoice } from '../api/chat-types.js';

// A re-asked stream never repeats itself (docs/contract.md#streams). The client has already seen
// the content of the earlier attempts (S, per choice); a re-ask's model often starts its answer
// with the same words. While the re-ask's content (T) is still a prefix of S it is held back:
//   - T grows past S and starts with all of S: only the rest goes on (S + the rest);
//   - T turns out to say something else (it leaves S before covering it): all of T goes on, the
//     held part included, after S (a different answer is shown whole, never spliced into S);
//   - T ends still a prefix of S: nothing of it goes on (it only repeated what the client has).
// Only `content` is guarded; every other delta field (role, reasoning, refusals) goes on as it
// comes, and chunks without content are the same objects. Linear: each character of T is compared
// once with S.

interface ChoiceText {
  /** The content the client has seen, all attempts so far. */
  sent: string;
  /** The current attempt's content while it is still a prefix of `sent` (held back); undefined once it goes on. */
  held: string | undefined;
}

export class RepeatGuard {
  private readonly choices = new Map<number, ChoiceText>();

  /** A re-ask begins: its content is held while it repeats what each choice has sent. */
  nextAttempt(): void {
    for (const text of this.choices.values()) text.held = text.sent === '' ? undefined : '';
  }

  /** What of a batch goes on (the batch itself when no content in it is held or changed). */
  pass(batch: ChatChunk[]): ChatChunk[] {
    return mapBatch(batch, (chunk) => this.chunk(chunk));
  }

  private chunk(chunk: ChatChunk): ChatChunk | undefined {
    let choices: ChunkChoice[] | undefined;
    for (let i = 0; i < chunk.choices.length; i++) {
      const choice = chunk.choices[i];
      const content = choice.delta.content;
      const text = typeof content === 'string' && content !== '' ? this.textOf(choice.index) : undefined;
      if (text === undefined || typeof content !== 'string') {
        choices?.push(choice);
        continue;
      }
      const shown = shownOf(text, content);
      text.sent += shown;
      if (shown === content) {
        choices?.push(choice);
        continue;
      }
      choices ??= chunk.choices.slice(0, i);
      if (shown !== '') {
        choices.push({ ...choice, delta: { ...choice.delta, content: shown } });
        continue;
      }
      const { content: _content, ...rest } = choice.delta;
      // What is left of the delta still goes on (a role, reasoning, a finish reason).
      if (Object.keys(rest).length > 0 || choice.finish_reason !== null) choices.push({ ...choice, delta: rest });
    }
    if (choices === undefined) return chunk;
    if (choices.length === 0 && !chunk.usage) return undefined;
    return { ...chunk, choices };
  }

  private textOf(index: number): ChoiceText {
    let text = this.choices.get(index);
    if (!text) {
      text = { sent: '', held: undefined };
      this.choices.set(index, text);
    }
    return text;
  }
}

/** The part of `content` the client is shown, given what it has seen and what is held back. */
function shownOf(text: ChoiceText, content: string): string {
  const held = text.held;
  if (held === undefined) return content;
  const sent = text.sent;
  const next = held + content;
  // Compare only the new characters: `held` already matched.
  const overlap = Math.min(next.length, sent.length);
  for (let at = held.length; at < overlap; at++) {
    if (next.charCodeAt(at) !== sent.charCodeAt(at)) {
      text.held = undefined;
      return next; // something else: the whole of it, after what was sent
    }
  }
  if (next.length <= sent.length) {
    text.held = next; // still repeating
    return '';
  }
  text.held = undefined;
  return next.slice(sent.length); // all of S repeated, then more: only the more
}
