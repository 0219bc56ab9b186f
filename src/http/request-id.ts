import { randomFillSync } from 'node:crypto';

// Request ids: `req_` + 128 random bits as 32 lowercase hex characters. Cut from a pooled buffer
// of random bytes refilled 256 ids at a time: a UUID per request with its dashes removed cost
// about 1 KB of garbage and two string copies per request. Every id takes fresh bytes.

const ID_BYTES = 16;
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let offset = pool.length;

export function newRequestId(): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return `req_${id}`;
}
