import { getRandomValues } from 'node:crypto';
// The memory ledger's index (prefix fingerprint or call id → entry) without a heap object per key:
// an open-addressing table in typed arrays holding, per key, a 32-bit hash of the scoped key, the
// entry's slot and which field of the entry's head the key is. Hashes only narrow the search: a
// candidate counts as the key only once the caller has read that field (and the scope) back from
// the entry and found them equal, so two keys that share a hash, two scopes that share an id, never
// meet. Linear probing with backward-shift deletion: no tombstones to pile up under constant churn.

const EMPTY = -1;
const INITIAL_CAPACITY = 1024;

/** Tells whether the key (scope, id) is field `field` of the entry in `slot`. */
export type KeyCheck = (slot: number, field: number, scope: string, id: string) => boolean;

export class KeyIndex {
  private hashes = new Int32Array(INITIAL_CAPACITY);
  private slots = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
  private fields = new Int32Array(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  /** Keys held. */
  size = 0;

  constructor(private readonly matches: KeyCheck) {}

  /**
   * The table position of key (scope, id) whose hash is `hash`, among fields `fromField`..`toField`
   * of the entries' heads; -1 when absent.
   */
  find(hash: number, scope: string, id: string, fromField: number, toField: number): number {
    const mask = this.mask;
    for (let at = hash & mask; this.slots[at] !== EMPTY; at = (at + 1) & mask) {
      if (this.hashes[at] !== hash) continue;
      const field = this.fields[at];
      if (field >= fromField && field <= toField && this.matches(this.slots[at], field, scope, id)) return at;
    }
    return -1;
  }

  slotAt(position: number): number {
    return this.slots[position];
  }

  /** Points the key at `position` at another entry (same key: its hash stays). */
  repoint(position: number, slot: number, field: number): void {
    this.slots[position] = slot;
    this.fields[position] = field;
  }

  insert(hash: number, slot: number, field: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.resize((this.mask + 1) * 2);
    const mask = this.mask;
    let at = hash & mask;
    while (this.slots[at] !== EMPTY) at = (at + 1) & mask;
    this.hashes[at] = hash;
    this.slots[at] = slot;
    this.fields[at] = field;
    this.size++;
  }

  /** Removes the key of field `field` of entry `slot` (hash `hash`), if the index still has it. */
  remove(hash: number, slot: number, field: number): boolean {
    const mask = this.mask;
    for (let at = hash & mask; this.slots[at] !== EMPTY; at = (at + 1) & mask) {
      if (this.slots[at] === slot && this.fields[at] === field && this.hashes[at] === hash) {
        this.removeAt(at);
        return true;
      }
    }
    return false;
  }

  clear(): void {
    this.hashes = new Int32Array(INITIAL_CAPACITY);
    this.slots = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
    this.fields = new Int32Array(INITIAL_CAPACITY);
    this.mask = INITIAL_CAPACITY - 1;
    this.size = 0;
  }

  /** Bytes the table takes (for the figures, not the budget: the budget counts per key). */
  get tableBytes(): number {
    return (this.mask + 1) * 12;
  }

  private removeAt(position: number): void {
    const mask = this.mask;
    let hole = position;
    // Backward shift: each later key of the run moves into the hole unless its home lies
    // cyclically after the hole (then moving it would put it before its home).
    for (let at = (hole + 1) & mask; this.slots[at] !== EMPTY; at = (at + 1) & mask) {
      const home = this.hashes[at] & mask;
      const stays = hole <= at ? hole < home && home <= at : hole < home || home <= at;
      if (stays) continue;
      this.hashes[hole] = this.hashes[at];
      this.slots[hole] = this.slots[at];
      this.fields[hole] = this.fields[at];
      hole = at;
    }
    this.slots[hole] = EMPTY;
    this.size--;
  }

  private resize(capacity: number): void {
    const { hashes, slots, fields } = this;
    this.hashes = new Int32Array(capacity);
    this.slots = new Int32Array(capacity).fill(EMPTY);
    this.fields = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.size = 0;
    for (let at = 0; at < slots.length; at++) if (slots[at] !== EMPTY) this.insert(hashes[at], slots[at], fields[at]);
  }
}

// Seeded per process: call ids reach the ledger from model output a client can steer, and ids
// crafted offline to share a hash would pile into one probe run (every step a head read). With a
// secret starting state a collision found for one process says nothing of another's (V8 seeds its
// own string hashes, which the Maps used before relied on, the same way).
const [PREFIX_SEED, CALL_SEED] = randomSeeds();

function randomSeeds(): [number, number] {
  const seeds = new Int32Array(2);
  getRandomValues(seeds);
  return [seeds[0], seeds[1]];
}

/** The hash of a prefix fingerprint's key in a scope. */
export function prefixHash(scope: string, fingerprint: string): number {
  return hashKey(PREFIX_SEED, scope, fingerprint);
}

/** The hash of a call id's key in a scope. */
export function callHash(scope: string, callId: string): number {
  return hashKey(CALL_SEED, scope, callId);
}

/** FNV-1a over the UTF-16 units of scope, a separator no unit equals, and id; then a final mix. */
function hashKey(seed: number, scope: string, id: string): number {
  let hash = seed;
  for (let i = 0; i < scope.length; i++) hash = Math.imul(hash ^ scope.charCodeAt(i), 0x0100_0193);
  hash = Math.imul(hash ^ 0x1_0000, 0x0100_0193);
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x0100_0193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85eb_ca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2_ae35);
  return hash ^ (hash >>> 16);
}
