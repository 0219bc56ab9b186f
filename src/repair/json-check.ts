// Is this text one valid JSON value? The same answer as `JSON.parse` not throwing, without building
// the value: checking every call's arguments is on the path of every request, and a char scan
// costs a fraction of a parse. Very deep nesting falls back to JSON.parse.

const MAX_DEPTH = 256;

class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  run(): boolean {
    this.ws();
    if (!this.value(0)) return false;
    this.ws();
    return this.i === this.s.length;
  }

  private ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return;
      this.i++;
    }
  }

  private value(depth: number): boolean {
    if (depth > MAX_DEPTH) throw new RangeError('deep');
    const c = this.s.charCodeAt(this.i);
    if (c === 123) return this.object(depth); // {
    if (c === 91) return this.array(depth); // [
    if (c === 34) return this.string(); // "
    if (c === 45 || (c >= 48 && c <= 57)) return this.number();
    return this.word('true') || this.word('false') || this.word('null');
  }

  private word(w: string): boolean {
    if (!this.s.startsWith(w, this.i)) return false;
    this.i += w.length;
    return true;
  }

  private object(depth: number): boolean {
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) {
      this.i++;
      return true;
    }
    for (;;) {
      if (this.s.charCodeAt(this.i) !== 34 || !this.string()) return false;
      this.ws();
      if (this.s.charCodeAt(this.i) !== 58) return false; // :
      this.i++;
      this.ws();
      if (!this.value(depth + 1)) return false;
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 125) return true;
      if (c !== 44) return false;
      this.ws();
    }
  }

  private array(depth: number): boolean {
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 93) {
      this.i++;
      return true;
    }
    for (;;) {
      if (!this.value(depth + 1)) return false;
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 93) return true;
      if (c !== 44) return false;
      this.ws();
    }
  }

  private string(): boolean {
    const s = this.s;
    this.i++;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i++);
      if (c === 34) return true;
      if (c < 32) return false;
      if (c !== 92) continue;
      const e = s.charCodeAt(this.i++);
      if (e === 117) {
        // \uXXXX
        for (let k = 0; k < 4; k++) if (!isHex(s.charCodeAt(this.i++))) return false;
      } else if (!(e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116)) {
        return false;
      }
    }
    return false;
  }

  private number(): boolean {
    const s = this.s;
    if (s.charCodeAt(this.i) === 45) this.i++;
    const first = s.charCodeAt(this.i);
    if (first === 48) this.i++;
    else if (!this.digits()) return false;
    if (s.charCodeAt(this.i) === 46) {
      this.i++;
      if (!this.digits()) return false;
    }
    const e = s.charCodeAt(this.i);
    if (e === 101 || e === 69) {
      this.i++;
      const sign = s.charCodeAt(this.i);
      if (sign === 43 || sign === 45) this.i++;
      if (!this.digits()) return false;
    }
    return true;
  }

  private digits(): boolean {
    const start = this.i;
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c < 48 || c > 57) break;
      this.i++;
    }
    return this.i > start;
  }
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

export function isValidJson(text: string): boolean {
  try {
    return new Scanner(text).run();
  } catch {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  }
}
