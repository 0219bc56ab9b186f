import type { ByteSource } from './byte-source.js';

// Upstream answers are untrusted: the body of an error answer (a stream's error status, or not the
// event stream asked for) is read to a byte cap; past it the request is cancelled, which closes
// the socket instead of returning it to the pool mid-body. Whole JSON answers are read off the
// pool by answer-text.ts, with the same caps and the same decoding (decodeUtf8).

/** How much of an error answer (non-2xx, or not the event stream asked for) is read for its message. */
export const ERROR_BODY_PREFIX_BYTES = 64 * 1024;

/**
 * The first maxBytes of an error answer as text, for its message; the rest is not read (the
 * request is cancelled). Never rejects: a body that fails to arrive reads as '' (the status says enough).
 */
export async function readErrorText(body: ByteSource, maxBytes = ERROR_BODY_PREFIX_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = body.read();
    if (chunk !== null) {
      if (length + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - length));
        length = maxBytes;
        body.cancel();
        break;
      }
      chunks.push(chunk);
      length += chunk.length;
    } else if (body.ended === null) {
      break;
    } else if (body.ended !== undefined) {
      return '';
    } else {
      await body.wait();
    }
  }
  return decodeUtf8(chunks, length);
}

/** The bytes as UTF-8 text, a leading BOM dropped (as undici's text() does). */
export function decodeUtf8(chunks: readonly Buffer[], length: number): string {
  if (length === 0) return '';
  const buffer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  const start = length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString('utf8', start, length);
}
