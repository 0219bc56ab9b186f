// The reasoning text a chat message or stream delta carries, in whichever spelling its upstream
// uses: `reasoning_content` (vLLM, SGLang, DeepSeek, xAI, Cerebras), `reasoning` (OpenRouter, Groq,
// Ollama, newer vLLM) or `reasoning_details` (OpenRouter, MiniMax: a list of parts). Several
// providers send two spellings of the same text side by side, so the first one present is the
// text: never their concatenation.

/** The reasoning text of a message or delta, '' when it has none. */
export function reasoningTextOf(holder: { readonly [key: string]: unknown }): string {
  const content = holder.reasoning_content;
  if (typeof content === 'string' && content !== '') return content;
  const plain = holder.reasoning;
  if (typeof plain === 'string' && plain !== '') return plain;
  const details = holder.reasoning_details;
  return Array.isArray(details) ? detailsText(details) : '';
}

/** The readable text of `reasoning_details` parts (`reasoning.text` and `reasoning.summary`; encrypted parts have none). */
function detailsText(details: readonly unknown[]): string {
  let text = '';
  for (const part of details) {
    if (typeof part !== 'object' || part === null) continue;
    const { type, text: body, summary } = part as Record<string, unknown>;
    if (type === 'reasoning.text' && typeof body === 'string') text += body;
    else if (type === 'reasoning.summary' && typeof summary === 'string') text += summary;
  }
  return text;
}
