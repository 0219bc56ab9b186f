import { isRecord } from '../is-record.js';
import type { MessagesHistory } from './repair/types.js';
import type { MessagesRequest, ToolParam } from './types.js';

// Tool search on any upstream. Claude Code (and Anthropic's advanced tool use) declares rarely used
// tools with `defer_loading: true` and answers its own search tool (ToolSearch) with a tool_result
// holding `{"type": "tool_reference", "tool_name": …}` blocks; Anthropic's API then loads those tools'
// definitions. Chat upstreams have no such thing, so the translation does it, from the request alone
// (stateless: the history holds the references):
// - a deferred tool is held back from the upstream until the history references it (a
//   tool_reference block, a tool_use that called it, or tool_choice naming it), then declared on
//   every request that carries that history; a deferred tool never referenced (Claude Code's
//   `DeferredToolPlaceholder`, "never call this tool") never reaches an upstream;
// - a tool_reference block becomes a line of text the model reads (referenceText).
// Anthropic's server-side search tools (`tool_search_tool_regex_*`, `tool_search_tool_bm25_*`) need
// the search run inside the API; toolgate does not run it: the search tool is left out and every
// deferred tool is declared at once (the model sees what a search could have found), said in
// `x-toolgate-warnings: tool_search_not_run=1`.

/** Anthropic's server-side tool search tools, by type. */
export function isServerToolSearch(tool: ToolParam): boolean {
  return typeof tool.type === 'string' && (tool.type.startsWith('tool_search_tool_regex') || tool.type.startsWith('tool_search_tool_bm25'));
}

export interface ToolSelection {
  /** The client tools to declare upstream, with their index in `tools` (for error params). */
  declared: Array<{ tool: ToolParam; index: number }>;
  /** Names of the declared tools. */
  names: ReadonlySet<string>;
  /** How many deferred tools were held back. */
  held: number;
  /** A server-side tool search tool was declared (and left out: toolgate does not run it). */
  serverSearch: boolean;
}

export function selectTools(request: Pick<MessagesRequest, 'tools' | 'tool_choice'>, history: MessagesHistory): ToolSelection {
  const tools = request.tools ?? [];
  const serverSearch = tools.some(isServerToolSearch);
  const referenced = serverSearch || !tools.some((tool) => tool.defer_loading === true) ? undefined : referencedNames(request, history);
  const declared: ToolSelection['declared'] = [];
  const names = new Set<string>();
  let held = 0;
  tools.forEach((tool, index) => {
    if (isServerToolSearch(tool)) return;
    if (tool.defer_loading === true && referenced !== undefined && !referenced.has(tool.name)) {
      held++;
      return;
    }
    declared.push({ tool, index });
    names.add(tool.name);
  });
  return { declared, names, held, serverSearch };
}

/** Tool names the history makes available: tool_reference blocks, tool_use names, tool_choice's name. One walk. */
function referencedNames(request: Pick<MessagesRequest, 'tool_choice'>, history: MessagesHistory): Set<string> {
  const names = new Set<string>();
  if (request.tool_choice?.type === 'tool' && typeof request.tool_choice.name === 'string') names.add(request.tool_choice.name);
  const visit = (block: unknown): void => {
    if (!isRecord(block)) return;
    if (block.type === 'tool_reference' && typeof block.tool_name === 'string') names.add(block.tool_name);
    else if (block.type === 'tool_use' && typeof block.name === 'string') names.add(block.name);
    else if (block.type === 'tool_result' && Array.isArray(block.content)) for (const inner of block.content) visit(inner);
  };
  for (const message of history.messages) if (Array.isArray(message.content)) for (const block of message.content) visit(block);
  return names;
}

/** What the model reads for a tool_reference block. */
export function referenceText(name: string, declared: ReadonlySet<string>): string {
  return declared.has(name) ? `Tool ${name} is now available.` : `Tool ${name} is not among the declared tools.`;
}
