import type { Dispatcher } from 'undici';

// Upstream answers are untrusted: the body of an error answer (a stream's error status, or not the
// event stream asked for) is read to a byte cap. undici's request() has no per-request size limit
// (the pool's maxResponseSize would cap long streams too), so bytes are counted per chunk here; past
// the cap the body is destroyed, which aborts the request and closes the socket instead of returning
// it to the pool mid-body. Whole JSON answers are read off the pool by answer-text.ts, with the
// same caps and the same decoding (decodeUtf8).

type Body = Dispatcher.ResponseData['body'];

/** How much of an error answer (non-2xx, or not the event stream asked for) is read for its message. */
export const ERROR_BODY_PREFIX_BYTES = 64 * 1024;

interface Prefix {
  chunks: Buffer[];
  length: number;
  /** False when the body went on past the cap (and was destroyed). */
  complete: boolean;
}

/**
 * The first maxBytes of an error answer as text, for its message; the rest is not read (the body is
 * destroyed). Never rejects: a body that fails to arrive reads as '' (the status says enough).
 */
export async function readErrorText(body: Body, maxBytes = ERROR_BODY_PREFIX_BYTES): Promise<string> {
  try {
    const { chunks, length } = await readUpTo(body, maxBytes);
    return decodeUtf8(chunks, length);
  } catch {
    return '';
  }
}

/** Reads until the end or until more than maxBytes came; keeps at most maxBytes. One pass, no copies until the end. */
function readUpTo(body: Body, maxBytes: number): Promise<Prefix> {
  return new Promise((resolve, reject) => {
    if (body.errored || body.destroyed) {
      reject(body.errored ?? new Error('the upstream body was already closed'));
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const onData = (chunk: Buffer): void => {
      if (length + chunk.length <= maxBytes) {
        chunks.push(chunk);
        length += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, maxBytes - length));
      length = maxBytes;
      settled = true;
      body.off('data', onData);
      // undici emits RequestAbortedError on destroy(): the error listener below takes it.
      body.destroy();
      resolve({ chunks, length, complete: false });
    };
    body.on('data', onData);
    body.on('error', (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    body.once('end', () => {
      if (settled) return;
      settled = true;
      resolve({ chunks, length, complete: true });
    });
    body.once('close', () => {
      if (settled) return;
      settled = true;
      reject(new Error('the upstream body closed before its end'));
    });
  });
}

/** The bytes as UTF-8 text, a leading BOM dropped (as undici's text() does). */
export function decodeUtf8(chunks: readonly Buffer[], length: number): string {
  if (length === 0) return '';
  const buffer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  const start = length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString('utf8', start, length);
}
