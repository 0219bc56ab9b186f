import { randomBytes } from 'node:crypto';

// The emulator's default script: a weather agent. First turn with tools → a call to the first
// declared tool (allowedFunctionNames first under mode ANY), one parallel call per city named in
// the prompt, with a thought signature on the first call for gemini-3 models. Once function
// responses are in the current turn → a text answer quoting them. No tools → a text echo.

type Json = Record<string, any>;

export interface ScriptInput {
  model: string;
  stream: boolean;
  body: Json;
  /** Signatures this emulator issued (add to it when answering with one). */
  issuedSignatures: Set<string>;
}

export interface ScriptReply {
  /** An error answer: HTTP status + Gemini error body. */
  status?: number;
  error?: { code?: number; message: string; status: string; details?: unknown[] };
  /** A JSON answer (for streams, split into events unless `events` is given). */
  response?: Json;
  /** Exact SSE events for streaming requests. */
  events?: Json[];
  /** A raw body (e.g. not JSON) with this content type. */
  raw?: { contentType: string; body: string };
  /** Wait before sending headers (timeout tests). */
  delayMs?: number;
  /** Wait between SSE events. */
  eventDelayMs?: number;
  /** Keep the SSE connection open after the last event (idle timeout tests). */
  hang?: boolean;
}

export type GeminiScript = (input: ScriptInput) => ScriptReply | Promise<ScriptReply>;

export function newSignature(issued: Set<string>): string {
  const signature = randomBytes(48).toString('base64');
  issued.add(signature);
  return signature;
}

export function usage(prompt: number, candidates: number, thoughts = 0): Json {
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates + thoughts, ...(thoughts ? { thoughtsTokenCount: thoughts } : {}) };
}

export function textOf(content: Json | undefined): string {
  return (content?.parts ?? []).map((p: Json) => (typeof p.text === 'string' ? p.text : '')).join('');
}

export const weatherScript: GeminiScript = ({ model, body, issuedSignatures }) => {
  const contents: Json[] = body.contents ?? [];
  const gemini3 = /^gemini-3/.test(model);
  let userIndex = -1;
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i].role !== 'model' && (contents[i].parts ?? []).some((p: Json) => typeof p.text === 'string')) {
      userIndex = i;
      break;
    }
  }
  const prompt = textOf(contents[userIndex]);
  const responses = contents.slice(userIndex + 1).flatMap((c) => (c.parts ?? []).filter((p: Json) => p.functionResponse).map((p: Json) => p.functionResponse));
  const declarations: Json[] = (body.tools ?? []).flatMap((t: Json) => t.functionDeclarations ?? []);
  const calling = body.toolConfig?.functionCallingConfig;
  const thoughts = gemini3 ? 12 : 0;

  if (responses.length > 0 || declarations.length === 0 || calling?.mode === 'NONE') {
    const text = responses.length > 0
      ? `Here is the weather: ${responses.map((r) => `${r.name}: ${JSON.stringify(r.response)}`).join('; ')}`
      : `Hello from the Gemini emulator. You said: ${prompt}`;
    const part: Json = { text, ...(gemini3 ? { thoughtSignature: newSignature(issuedSignatures) } : {}) };
    return { response: answer([part], 'STOP', usage(20, Math.ceil(text.length / 4), thoughts)) };
  }
  const allowed: string[] = calling?.mode === 'ANY' && Array.isArray(calling.allowedFunctionNames) ? calling.allowedFunctionNames : [];
  const tool = declarations.find((d) => allowed.includes(d.name)) ?? declarations[0];
  const cities = citiesIn(prompt);
  const parts = (cities.length > 0 ? cities : [prompt]).map((city, n): Json => ({
    functionCall: { name: tool.name, args: argsFor(tool.parameters, city) },
    ...(gemini3 && n === 0 ? { thoughtSignature: newSignature(issuedSignatures) } : {}),
  }));
  return { response: answer(parts, 'STOP', usage(30, 8 * parts.length, thoughts)) };
};

export function answer(parts: Json[], finishReason: string, usageMetadata: Json): Json {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
    usageMetadata,
    modelVersion: 'emulator',
    responseId: randomBytes(9).toString('base64url'),
  };
}

function citiesIn(prompt: string): string[] {
  const match = /\b(?:in|for|at)\s+([A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*)*(?:\s*(?:,|and)\s*[A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*)*)*)/u.exec(prompt);
  return match ? match[1].split(/\s*(?:,|\band\b)\s*/).map((c) => c.trim()).filter(Boolean) : [];
}

/** The city goes in the place-like property; other required properties get a plain value. */
function argsFor(schema: Json | undefined, city: string): Json {
  const properties: Json = schema?.properties ?? {};
  const required: string[] = schema?.required ?? [];
  const placeKey = Object.keys(properties).find((n) => /city|location|place|town/i.test(n)) ?? required.find((n) => String(properties[n]?.type).toUpperCase() === 'STRING');
  const args: Json = {};
  for (const [name, sub] of Object.entries<Json>(properties)) {
    if (name === placeKey) args[name] = city;
    else if (required.includes(name)) args[name] = valueFor(sub);
  }
  return args;
}

function valueFor(schema: Json): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[schema.enum.length - 1];
  switch (String(schema.type).toUpperCase()) {
    case 'NUMBER':
    case 'INTEGER':
      return 1;
    case 'BOOLEAN':
      return true;
    case 'ARRAY':
      return [];
    case 'OBJECT':
      return {};
    default:
      return 'value';
  }
}
