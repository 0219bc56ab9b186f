// Whether an answer explains or shows a call rather than makes one, read from its prose as it
// streams past the scanner (scanner.ts): each character is looked at once, plus a short window
// across pieces so a cue split between two deltas is still found.

/**
 * Words of an answer that explains or shows a call rather than makes one. Once the answer's prose
 * (before a block) has one, blocks that only look like calls (bare or fenced JSON, pythonic lists,
 * inline Llama JSON, `functions.x:0` remnants) are examples and stay content; the model's own call
 * markers still count. Precision first: a wrong call runs a tool the user only asked about.
 */
export const EXPLAINING = /\b(?:for (?:example|instance)|e\.g\.|examples?\b|such as|would look|looks? like|syntax|schema|template|sample|illustrat|demonstrat|like (?:this|so)\b|how (?:to|you|one) (?:would |could |can )?(?:call|use|invoke|write)\b|you (?:can|could|would|should|might|may) (?:call|use|invoke|send|write|pass)\b)/i;
/** The longest cue above, in characters: prose kept to find a cue split between pieces. */
export const CUE_WINDOW = 48;
export class ExplanationCues {
  /** The answer's prose so far explains or shows calls (EXPLAINING): guesses are off from here on. */
  explaining = false;
  /** The end of the prose seen so far (CUE_WINDOW characters), for a cue split between pieces. */
  private tail = '';

  /** Looks for an explanation cue in the next piece of prose. */
  note(prose: string): void {
    if (this.explaining) return;
    const text = this.tail + prose;
    if (EXPLAINING.test(text)) {
      this.explaining = true;
      this.tail = '';
      return;
    }
    this.tail = text.length > CUE_WINDOW ? text.slice(text.length - CUE_WINDOW) : text;
  }

  /** A new answer starts (a closer without its opener: what follows is the answer). */
  reset(): void {
    this.explaining = false;
    this.tail = '';
  }
}
