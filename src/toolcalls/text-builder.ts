// Text that a stream builds piece by piece and keeps to its end (the answer's content and a call's
// arguments, for the ledger, the report and the journal). `text += piece` per event keeps every
// piece and a rope node per piece (~60 bytes for a 6-character token on V8) until the string is
// read; the pieces are joined into one flat string every BLOCK pieces instead, so what a long
// stream holds is about its characters. Each character is copied once or twice (linear).

/** Pieces per flat block. */
const BLOCK = 64;

export class TextBuilder {
  /** Flat blocks (a rope of one node per block). */
  private blocks = '';
  /** The current block's pieces, fewer than BLOCK. */
  private tail = '';
  private pieces = 0;

  append(piece: string): void {
    if (piece === '') return;
    this.tail += piece;
    if (++this.pieces < BLOCK) return;
    this.blocks += flat(this.tail);
    this.tail = '';
    this.pieces = 0;
  }

  get text(): string {
    return this.blocks + this.tail;
  }

  get length(): number {
    return this.blocks.length + this.tail.length;
  }
}

/**
 * `rope` as one flat string. A new concatenation, flattened by slicing it: V8 flattens a rope it
 * slices (charCodeAt flattens on Node 20 but not on Node 24), and the slice shares the flat storage.
 */
function flat(rope: string): string {
  return ` ${rope}`.slice(1);
}
