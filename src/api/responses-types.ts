// Wire types of the OpenAI Responses API as toolgate handles them. Index signatures keep the
// fields clients and upstreams add (docs/clients.md): nothing unknown is dropped on the way.

import { isRecord } from '../is-record.js';

/** Any input or output item. `type` is missing only before item repair has run. */
export interface Item {
  type?: string;
  id?: string;
  [key: string]: unknown;
}

export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export type MessageRole = 'user' | 'assistant' | 'system' | 'developer';

export interface MessageItem extends Item {
  type: 'message';
  role: MessageRole;
  content: string | ContentPart[];
  status?: string;
}

export interface FunctionCallItem extends Item {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  status?: string;
}

export interface FunctionCallOutputItem extends Item {
  type: 'function_call_output';
  call_id: string;
  output: string | ContentPart[];
  status?: string;
}

export interface ReasoningItem extends Item {
  type: 'reasoning';
  id: string;
  summary: ContentPart[];
  content?: ContentPart[];
  encrypted_content?: string | null;
}

export interface ItemReference extends Item {
  type: 'item_reference';
  id: string;
}

/** A flat Responses function tool (chat-shaped ones are flattened on parse). */
export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  [key: string]: unknown;
}

export type ResponseTool = FunctionTool | { type: string; [key: string]: unknown };

/** A validated `POST /v1/responses` body. `input` is always a list of items here. */
export interface ResponsesRequest {
  model: string;
  input: Item[];
  instructions?: string | Item[];
  tools?: ResponseTool[];
  tool_choice?: string | Record<string, unknown>;
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  text?: Record<string, unknown>;
  reasoning?: Record<string, unknown>;
  include?: string[];
  store?: boolean;
  previous_response_id?: string;
  stream?: boolean;
  metadata?: Record<string, string>;
  user?: string;
  presence_penalty?: number;
  frequency_penalty?: number;
  safety_identifier?: string;
  prompt_cache_key?: string;
  /** A cap on calls to built-in (hosted) tools: the bridge runs none, so it is met and echoed. */
  max_tool_calls?: number;
  [key: string]: unknown;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'completed' | 'failed' | 'in_progress' | 'incomplete' | 'cancelled' | 'queued';

/** The response object (`object: "response"`). */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | Item[] | null;
  max_output_tokens: number | null;
  model: string;
  output: Item[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: Record<string, unknown> | null;
  store: boolean;
  temperature: number | null;
  text: Record<string, unknown>;
  tool_choice: string | Record<string, unknown>;
  tools: ResponseTool[];
  top_p: number | null;
  truncation: 'auto' | 'disabled';
  usage: ResponseUsage | null;
  metadata: Record<string, string>;
  presence_penalty: number;
  frequency_penalty: number;
  top_logprobs: number;
  max_tool_calls: number | null;
  user: string | null;
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  [key: string]: unknown;
}

/** One Responses stream event before it gets its `sequence_number`. */
export interface StreamEventBody {
  type: string;
  [key: string]: unknown;
}

export { isRecord };

export const isMessage = (item: Item): item is MessageItem => item.type === 'message';
export const isFunctionCall = (item: Item): item is FunctionCallItem => item.type === 'function_call';
export const isFunctionOutput = (item: Item): item is FunctionCallOutputItem => item.type === 'function_call_output';
export const isReasoning = (item: Item): item is ReasoningItem => item.type === 'reasoning';
export const isReference = (item: Item): item is ItemReference => item.type === 'item_reference';

/** The text of a message's or an output's content (string, or the text of its parts). */
export function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part;
      if (!isRecord(part)) return '';
      if (typeof part.text === 'string') return part.text;
      if (typeof part.refusal === 'string') return part.refusal;
      return '';
    })
    .join('');
}
