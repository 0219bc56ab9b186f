import type { ToolDefinition } from '../api/chat-types.js';

/** A tool call found in model text, before ids are assigned. `arguments` is always a JSON string. */
export interface ParsedCall {
  name: string;
  arguments: string;
}

export interface ParseResult {
  calls: ParsedCall[];
  /** The prose that remains once the calls are cut out, trimmed; null when nothing remains. */
  content: string | null;
  /** The format module that recognized the calls. */
  format: string;
}

/** Resolves a name the model wrote to a declared tool name, or null when it is not a declared tool. */
export type NameResolver = (calledName: string) => string | null;

export interface ParseContext {
  tools: ReadonlyMap<string, ToolDefinition>;
  resolveName: NameResolver;
}
