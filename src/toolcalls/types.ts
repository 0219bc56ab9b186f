import type { ToolDefinition } from '../api/chat-types.js';
import type { RepairBudget } from '../util/bounded-json.js';

/** A tool call found in model text, before ids are assigned. `arguments` is always a JSON string. */
export interface ParsedCall {
  name: string;
  arguments: string;
  /** The name as the model wrote it, when it differs from the declared `name`. */
  calledName?: string;
}

export interface ParseResult {
  calls: ParsedCall[];
  /** The prose that remains once the calls are cut out, as written; null when nothing (or only whitespace) remains. */
  content: string | null;
  /** The format module that recognized the calls. */
  format: string;
  /** Reasoning split out of the text (reasoning mode `split`); absent when none. */
  reasoning?: string;
}

/** Resolves a name the model wrote to a declared tool name, or null when it is not a declared tool. */
export type NameResolver = (calledName: string) => string | null;

export interface ParseContext {
  tools: ReadonlyMap<string, ToolDefinition>;
  resolveName: NameResolver;
  /** The request's tenant's jsonrepair budget (broken JSON in calls). */
  repairBudget: RepairBudget;
}

/** How a called name was matched to a declared tool (see names.ts). */
export type NameMatchKind = 'exact' | 'alias' | 'normalized';

export interface NameResolution {
  name: string;
  how: NameMatchKind;
}

/** The detailed form of NameResolver: also says how the name was matched. */
export type DetailedNameResolver = (calledName: string) => NameResolution | null;
