// Where the scanner is on its line. The scanner drops decided text as it goes (compact), but some
// formats only start at a line start or after a given character: the few facts about the dropped
// past that are ever asked about are kept here.

export class LinePosition {
  /** The character just before the scanner's text ('\n' at the very start). */
  private charBefore = '\n';
  /** The last character before the text that is not a space or tab ('\n' at a line start). */
  private nonBlankBeforeText = '\n';
  /** Where a reasoning block ended: what follows starts a line, as after a newline (-1: none). */
  lineStartAt = -1;

  /** The last character before `i` that is not a space or tab; '\n' at a line start (or after reasoning). */
  nonBlankBefore(text: string, i: number): string {
    let j = i - 1;
    while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
    if (j >= 0 && j + 1 === this.lineStartAt) return '\n';
    return j < 0 ? this.nonBlankBeforeText : text[j];
  }

  isLineStart(text: string, i: number): boolean {
    return this.nonBlankBefore(text, i) === '\n';
  }

  prevChar(text: string, i: number): string {
    return i > 0 ? text[i - 1] : this.charBefore;
  }

  isAfterNewline(text: string, i: number): boolean {
    return this.prevChar(text, i) === '\n';
  }

  /** text[0, cursor) is being dropped: keep what line-start checks need. */
  drop(text: string, cursor: number): void {
    this.nonBlankBeforeText = this.nonBlankBefore(text, cursor);
    this.charBefore = text[cursor - 1];
    this.lineStartAt = this.lineStartAt > cursor ? this.lineStartAt - cursor : -1;
  }

  /** `prose` passed through without entering the text (the scanner's fast path). */
  passed(prose: string): void {
    this.charBefore = prose[prose.length - 1];
    for (let i = prose.length - 1; i >= 0; i--) {
      if (prose[i] !== ' ' && prose[i] !== '\t') {
        this.nonBlankBeforeText = prose[i];
        return;
      }
    }
  }
}
