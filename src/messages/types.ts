// The Anthropic Messages API as toolgate reads and writes it. Request types hold what validation
// checked (schema.ts); blocks keep every other field as the client sent it (cache_control,
// citations, …), which the translation ignores.

export type Block = { type: string; [key: string]: unknown };

/**
 * A message as validation left it: blocks may still be bare strings or untyped (repair/block-shapes.ts).
 * `system` is not in Anthropic's spec, but Claude Code sends such reminders between turns; they stay in place.
 */
export interface RawMessageParam {
  role: 'user' | 'assistant' | 'system';
  content: string | unknown[];
}

/** A message after the block-shapes pass: every block an object with a `type`. */
export interface MessageParam {
  role: RawMessageParam['role'];
  content: string | Block[];
}

export interface ToolParam {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  type?: string;
  [key: string]: unknown;
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: RawMessageParam[];
  system?: string | unknown[];
  tools?: ToolParam[];
  tool_choice?: { type: string; name?: string; disable_parallel_tool_use?: boolean; [key: string]: unknown };
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stream?: boolean;
  metadata?: { user_id?: string | null; [key: string]: unknown };
  thinking?: { type: string; budget_tokens?: number; [key: string]: unknown };
  [key: string]: unknown;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export type OutputBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface MessageObject {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutputBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: MessageUsage;
}

