// What an adapter saw in an answer that the client should be told about but that changes nothing
// in it (the answer is relayed as it came): noted on the completion, or on the stream chunk that
// ends the choice, and read by the pipeline (src/pipeline/chat.ts) for the `x-toolgate-warnings`
// header of a JSON answer, the metrics and the log. Kept beside the object, never in it: the client
// never sees a field of ours.

/** `unexpected_tool_call`: Gemini/Vertex ended a candidate with finishReason UNEXPECTED_TOOL_CALL (a call to an undeclared tool) and its call is relayed. */
export type AnswerWarningKind = 'unexpected_tool_call';

/** Per kind, how many calls it concerns. */
export type AnswerWarnings = Partial<Record<AnswerWarningKind, number>>;

const notes = new WeakMap<object, AnswerWarnings>();

/** Notes `count` calls of `kind` on an answer object (a completion, or the chunk that ends its choice). */
export function noteAnswerWarning(answer: object, kind: AnswerWarningKind, count: number): void {
  const warnings = notes.get(answer) ?? {};
  warnings[kind] = (warnings[kind] ?? 0) + count;
  notes.set(answer, warnings);
}

/** The warnings noted on an answer object; undefined when none. */
export function answerWarningsOf(answer: object): AnswerWarnings | undefined {
  return notes.get(answer);
}

/** Adds `more` into `into` (per kind). */
export function addAnswerWarnings(into: AnswerWarnings, more: AnswerWarnings): void {
  for (const kind of Object.keys(more) as AnswerWarningKind[]) into[kind] = (into[kind] ?? 0) + (more[kind] ?? 0);
}

/** `kind=count,…` for the x-toolgate-warnings header; undefined when none. */
export function answerWarningsHeader(warnings: AnswerWarnings): string | undefined {
  const parts = Object.entries(warnings)
    .filter(([, count]) => (count ?? 0) > 0)
    .map(([kind, count]) => `${kind}=${count}`);
  return parts.length > 0 ? parts.join(',') : undefined;
}
