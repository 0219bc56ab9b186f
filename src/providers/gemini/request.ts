import type { ChatRequest } from '../../api/chat-types.js';
import { geminiMajor, toGenerationConfig, toTools } from './config.js';
import { toContents, type CallMeta } from './messages.js';
import type { ArgFix } from './schema.js';
import type { GenerateContentRequest } from './wire-types.js';

// The whole OpenAI chat request → one GenerateContentRequest (pure; the adapter does the I/O).

export interface BuiltRequest {
  body: GenerateContentRequest;
  fixes: Map<string, ArgFix>;
}

export interface BuildOptions {
  /** The upstream model id, e.g. `gemini-3-flash-preview`. */
  model: string;
  meta?: (callId: string) => CallMeta | undefined;
}

/** Gemini 3 validates signatures; ids without a version (`gemini-flash-latest`) may point at one. */
export function requiresSignatures(model: string): boolean {
  const major = geminiMajor(model);
  return major === null || major >= 3;
}

export function buildRequest(request: ChatRequest, options: BuildOptions): BuiltRequest {
  const { contents, systemInstruction } = toContents(request.messages, {
    meta: options.meta ?? (() => undefined),
    requireSignatures: requiresSignatures(options.model),
  });
  const { tools, toolConfig, fixes } = toTools(request);
  const generationConfig = toGenerationConfig(request, options.model);
  const body: GenerateContentRequest = {
    contents,
    ...(systemInstruction ? { systemInstruction } : {}),
    ...(tools ? { tools } : {}),
    ...(toolConfig ? { toolConfig } : {}),
    ...(generationConfig ? { generationConfig } : {}),
  };
  return { body, fixes };
}

/** `models/x` and `tunedModels/x` are used as given; a bare id gets the `models/` prefix. */
export function modelPath(model: string, stream: boolean): string {
  // Each path segment is encoded: a model id never changes which resource (or host) is called.
  const match = /^(models|tunedModels)\/(.+)$/.exec(model);
  const resource = match ? `${match[1]}/${encodeURIComponent(match[2])}` : `models/${encodeURIComponent(model)}`;
  return `/${resource}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}
