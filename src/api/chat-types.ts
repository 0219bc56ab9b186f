// Internal wire types: everything inside toolgate is OpenAI Chat Completions shaped.
// Index signatures keep the extra fields real clients send (see docs/clients.md);
// nothing the gateway does not understand is dropped on the way through.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: unknown };

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

export interface TextPart {
  type: 'text';
  text: string;
  [key: string]: unknown;
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
  [key: string]: unknown;
}
export interface OtherPart {
  type: string;
  [key: string]: unknown;
}
export type ContentPart = TextPart | ImagePart | OtherPart;
export type MessageContent = string | ContentPart[];

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ChatMessage {
  role: Role;
  content?: MessageContent | null;
  name?: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: JsonObject;
  strict?: boolean | null;
  [key: string]: unknown;
}

export interface ToolDefinition {
  type: 'function';
  function: FunctionDefinition;
}

/** OpenAI's three words, or another provider's (Mistral's 'any'): passed on for the upstream to judge. */
export type ToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | (string & {})
  | { type: 'function'; function: { name: string } }
  | { type: string; [key: string]: unknown };

/**
 * A message as validation left it (api/chat-schema.ts): the role is known, everything else is as
 * the client sent it. The repair step checks the rest and produces ChatMessage.
 */
export interface RawChatMessage {
  role: Role;
  [key: string]: unknown;
}

/** A chat completions body after validation, before repair: only what parseChatRequest checked. */
export interface RawChatRequest {
  model: string;
  messages: RawChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean | null; [key: string]: unknown } | null;
  tools?: object[];
  functions?: object[];
  n?: number | null;
  temperature?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  [key: string]: unknown;
}

/** A chat request after the repair step: every field below was checked or built by it. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  stream?: boolean;
  stream_options?: { include_usage?: boolean; [key: string]: unknown } | null;
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [key: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [key: string]: unknown };
  [key: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: ToolCall[];
  [key: string]: unknown;
}

export interface ChatChoice {
  index: number;
  message: AssistantMessage;
  finish_reason: FinishReason | null;
  logprobs?: unknown;
  [key: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatChoice[];
  usage?: Usage;
  system_fingerprint?: string | null;
  [key: string]: unknown;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  tool_calls?: ToolCallDelta[];
  [key: string]: unknown;
}

export interface ChunkChoice {
  index: number;
  delta: ChunkDelta;
  finish_reason: FinishReason | null;
  logprobs?: unknown;
  [key: string]: unknown;
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChunkChoice[];
  usage?: Usage | null;
  system_fingerprint?: string | null;
  [key: string]: unknown;
}
