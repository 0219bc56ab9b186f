import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../config/schema.js';
import { errors } from '../errors.js';
import type { ProviderSettings } from './types.js';

// Upstream answers are untrusted: a whole-body read stops at a byte cap. undici's request() has no
// per-request size limit (the pool's maxResponseSize would cap long streams too), so bytes are
// counted per chunk here; past the cap the body is destroyed, which aborts the request and closes
// the socket instead of returning it to the pool mid-body.

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
 * A 2xx answer's whole body as UTF-8 text (a leading BOM dropped, as undici's text() does). Past the
 * provider's maxResponseBytes: a 502 upstream_bad_response. Transport errors reject as they are.
 */
export async function readAnswerText(body: Body, provider: Pick<ProviderSettings, 'name' | 'maxResponseBytes'>): Promise<string> {
  const maxBytes = provider.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const read = await readUpTo(body, maxBytes);
  if (!read.complete) {
    throw errors.upstreamBadResponse(provider.name, `an answer larger than ${maxBytes} bytes (providers.${provider.name}.maxResponseBytes)`);
  }
  return decode(read);
}

/**
 * The first maxBytes of an error answer as text, for its message; the rest is not read (the body is
 * destroyed). Never rejects: a body that fails to arrive reads as '' (the status says enough).
 */
export async function readErrorText(body: Body, maxBytes = ERROR_BODY_PREFIX_BYTES): Promise<string> {
  try {
    return decode(await readUpTo(body, maxBytes));
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

function decode({ chunks, length }: Prefix): string {
  if (length === 0) return '';
  const buffer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length);
  const start = length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString('utf8', start, length);
}
