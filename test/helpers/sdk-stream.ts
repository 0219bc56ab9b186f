import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';

// Reads SSE text the way most agents read streams: the official `openai` SDK's
// `chat.completions.stream()` and `finalChatCompletion()`, over a fetch that answers with the
// given bytes (no server needed).

export type SdkRead = { ok: true; completion: ChatCompletion; chunks: number } | { ok: false; error: string };

/** The SDK's final completion for this SSE body (or the error its helpers throw). */
export async function readWithSdk(sse: string): Promise<SdkRead> {
  const fetchSse = async (): Promise<Response> => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://sdk.invalid/v1', maxRetries: 0, fetch: fetchSse });
  try {
    const stream = client.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    let chunks = 0;
    for await (const _chunk of stream) chunks++;
    return { ok: true, completion: await stream.finalChatCompletion(), chunks };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** SSE text of these chunks, `[DONE]` last. */
export function sseOf(chunks: readonly unknown[]): string {
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
}
