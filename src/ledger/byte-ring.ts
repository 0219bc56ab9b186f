// The memory ledger's entries as bytes outside the V8 heap: one Buffer used as a ring, written at
// its head, reclaimed at its tail (the oldest entry first). Every tool-calling answer is recorded
// and almost none is read again, so an entry kept as a JS string lived long enough to reach V8's
// old generation and died there, at the request rate: the mark-compacts in the p99. Here an entry
// is bytes in the ring plus numbers in typed arrays (its slot): no heap object per entry.
//
// Slots are numbered records in typed arrays, stable while their entry lives (the index points at
// them); the ring's order is a linked list through them. An entry dropped early (its keys moved to
// a newer entry, a hit re-appended, a merge) is marked dead: its bytes go when the tail reaches them.
// The Buffer starts small and doubles up to its cap, so an idle gateway holds little.

/** Per-slot Int32 fields (stride FIELDS). */
const OFFSET = 0; // where the entry's bytes start in the ring
const LENGTH = 1; // how many bytes
const FLAGS = 2;
const NEXT = 3; // the next slot in ring order (or in the free list); -1 none
const REFS = 4; // index keys pointing at the entry (owned by the ledger)
const COUNTED = 5; // the bytes the entry is counted for (ring bytes + its slot and keys)
const GENERATION = 6; // bumped at each use of the slot: a slot number alone is not an entry
const FIELDS = 8;

export const LIVE = 1;
export const UTF16 = 2; // the text is UTF-16LE (it holds a lone surrogate); else UTF-8

const INITIAL_SLOTS = 256;
const INITIAL_BYTES = 64 * 1024;
/** The ring's largest size (Int32 offsets, and far above any sane ledger.maxBytes). */
export const MAX_RING_BYTES = 0x7fff_ffff;

export class ByteRing {
  private buffer: Buffer | undefined; // allocated at the first append: an idle ledger holds none
  private ints = new Int32Array(INITIAL_SLOTS * FIELDS);
  private startedAt = new Float64Array(INITIAL_SLOTS);
  private slotCount = INITIAL_SLOTS;
  private freeSlot = -1;
  private nextUnused = 0; // slots never used yet start here
  private tail = -1; // oldest slot in ring order
  private head = -1; // newest
  private writeAt = 0;
  private wrapped = false; // the head has wrapped to the start, behind the tail
  /** Bytes counted for every slot in the ring, live or dead (dead bytes are still held). */
  heldBytes = 0;
  /** Live entries. */
  live = 0;

  constructor(
    private readonly maxRingBytes: number,
    /** Told of each live entry reclaimed at the tail (before its slot is reused). */
    private readonly onEvict: (slot: number) => void,
  ) {}

  /**
   * A slot with `length` bytes reserved at the head, evicting at the tail until the bytes fit and
   * `counted` more stays within `budget` (with `keep` the entries at most, live ones counted).
   * The caller writes the bytes (see `bytes`) before anything else touches the ring.
   */
  append(length: number, counted: number, budget: number, keep: number, flags: number, now: number): number {
    while (this.tail !== -1 && (this.heldBytes + counted > budget || this.live >= keep)) this.evictTail();
    const at = this.reserve(length);
    const slot = this.takeSlot();
    const base = slot * FIELDS;
    const ints = this.ints;
    ints[base + OFFSET] = at;
    ints[base + LENGTH] = length;
    ints[base + FLAGS] = flags | LIVE;
    ints[base + NEXT] = -1;
    ints[base + REFS] = 0;
    ints[base + COUNTED] = counted;
    ints[base + GENERATION]++;
    this.startedAt[slot] = now;
    if (this.head === -1) this.tail = slot;
    else ints[this.head * FIELDS + NEXT] = slot;
    this.head = slot;
    this.heldBytes += counted;
    this.live++;
    return slot;
  }

  /** The ring's memory (bytes of `slot` are at offsetOf(slot), lengthOf(slot) long). */
  get bytes(): Buffer {
    return this.buffer!;
  }

  offsetOf(slot: number): number {
    return this.ints[slot * FIELDS + OFFSET];
  }

  lengthOf(slot: number): number {
    return this.ints[slot * FIELDS + LENGTH];
  }

  flagsOf(slot: number): number {
    return this.ints[slot * FIELDS + FLAGS];
  }

  generationOf(slot: number): number {
    return this.ints[slot * FIELDS + GENERATION];
  }

  startedAtOf(slot: number): number {
    return this.startedAt[slot];
  }

  isLive(slot: number): boolean {
    return (this.ints[slot * FIELDS + FLAGS] & LIVE) !== 0;
  }

  /** Adds `delta` to the count of index keys pointing at `slot`; the new count. */
  addRefs(slot: number, delta: number): number {
    return (this.ints[slot * FIELDS + REFS] += delta);
  }

  /** Marks a live entry dead (its bytes stay counted until the tail reclaims them). */
  drop(slot: number): void {
    const at = slot * FIELDS + FLAGS;
    if ((this.ints[at] & LIVE) === 0) return;
    this.ints[at] &= ~LIVE;
    this.live--;
  }

  /** Empties the ring and lets its memory go. */
  clear(): void {
    this.buffer = undefined;
    this.ints = new Int32Array(INITIAL_SLOTS * FIELDS);
    this.startedAt = new Float64Array(INITIAL_SLOTS);
    this.slotCount = INITIAL_SLOTS;
    this.freeSlot = -1;
    this.nextUnused = 0;
    this.tail = this.head = -1;
    this.writeAt = 0;
    this.wrapped = false;
    this.heldBytes = this.live = 0;
  }

  private evictTail(): void {
    const slot = this.tail;
    const base = slot * FIELDS;
    const ints = this.ints;
    if ((ints[base + FLAGS] & LIVE) !== 0) {
      this.onEvict(slot);
      ints[base + FLAGS] &= ~LIVE;
      this.live--;
    }
    this.heldBytes -= ints[base + COUNTED];
    const next = ints[base + NEXT];
    ints[base + NEXT] = this.freeSlot;
    this.freeSlot = slot;
    this.tail = next;
    if (next === -1) {
      this.head = -1;
      this.writeAt = 0;
      this.wrapped = false;
    } else if (ints[next * FIELDS + OFFSET] < ints[base + OFFSET]) this.wrapped = false; // the tail wrapped too
  }

  /** Where `length` bytes go: after the head, else at the start, else the tail gives way (or the ring grows). */
  private reserve(length: number): number {
    for (;;) {
      const capacity = this.buffer?.length ?? 0;
      if (this.tail === -1) {
        if (length > capacity) this.grow(length);
        this.writeAt = length;
        return 0;
      }
      const tailAt = this.ints[this.tail * FIELDS + OFFSET];
      const at = this.writeAt;
      if (!this.wrapped) {
        if (at + length <= capacity) return this.advance(at, length);
        if (length <= tailAt) {
          this.wrapped = true;
          return this.advance(0, length);
        }
      } else if (at + length <= tailAt) return this.advance(at, length);
      if (capacity < this.maxRingBytes) this.grow(length);
      else this.evictTail();
    }
  }

  private advance(at: number, length: number): number {
    this.writeAt = at + length;
    return at;
  }

  /** A larger Buffer (double, or what `length` more needs, up to the cap), the entries copied in ring order. */
  private grow(length: number): void {
    const old = this.buffer;
    const held = old === undefined ? 0 : this.usedBytes();
    let capacity = Math.max(INITIAL_BYTES, (old?.length ?? 0) * 2);
    while (capacity < held + length) capacity *= 2;
    const next = Buffer.allocUnsafeSlow(Math.min(capacity, this.maxRingBytes));
    let at = 0;
    if (old !== undefined) {
      for (let slot = this.tail; slot !== -1; slot = this.ints[slot * FIELDS + NEXT]) {
        const base = slot * FIELDS;
        const from = this.ints[base + OFFSET];
        const bytes = this.ints[base + LENGTH];
        old.copy(next, at, from, from + bytes);
        this.ints[base + OFFSET] = at;
        at += bytes;
      }
    }
    this.buffer = next;
    this.writeAt = at;
    this.wrapped = false;
  }

  private usedBytes(): number {
    let total = 0;
    for (let slot = this.tail; slot !== -1; slot = this.ints[slot * FIELDS + NEXT]) total += this.ints[slot * FIELDS + LENGTH];
    return total;
  }

  private takeSlot(): number {
    if (this.freeSlot !== -1) {
      const slot = this.freeSlot;
      this.freeSlot = this.ints[slot * FIELDS + NEXT];
      return slot;
    }
    if (this.nextUnused === this.slotCount) {
      this.slotCount *= 2;
      const ints = new Int32Array(this.slotCount * FIELDS);
      ints.set(this.ints);
      this.ints = ints;
      const startedAt = new Float64Array(this.slotCount);
      startedAt.set(this.startedAt);
      this.startedAt = startedAt;
    }
    return this.nextUnused++;
  }
}
