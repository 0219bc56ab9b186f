// The scripted task the emulated upstream plays for whatever agent calls it, independent of the wire
// format: the prompt carries a marker `TG-TASK <kind> <token> [<path>]`; the upstream finds the agent's
// own write / shell / tool-search tool by its schema, calls it once, and answers with a final text
// `TG-DONE <token>` once the tool's result is back (or a text naming what went wrong, which fails the run).

type Json = Record<string, any>;

export type TaskKind = 'write' | 'shell' | 'reason' | 'search' | 'mcp';

export interface Task {
  kind: TaskKind;
  token: string;
  /** write: the absolute path the file goes to. */
  path?: string;
}

export interface ToolView {
  name: string;
  parameters: Json;
  /** A Responses `namespace` tool's name, for the tools inside it (Codex's MCP servers, multi_agent_v1). */
  namespace?: string;
}

export interface ToolCallMove {
  call: { name: string; args: Json; namespace?: string };
  /** Reasoning the upstream answers with beside the call (the `reason` task). */
  reasoning?: string;
}
export type Move = ToolCallMove | { text: string };

const MARKER = /TG-TASK (write|shell|reason|search|mcp) ([a-z0-9]{6,32})(?: (\/[^\s"\\]+))?/;

export function taskIn(text: string): Task | undefined {
  const match = MARKER.exec(text);
  if (!match) return undefined;
  return { kind: match[1] as TaskKind, token: match[2], ...(match[3] ? { path: match[3] } : {}) };
}

/** What the prompt says, per task (the harness puts it in the agent's prompt). */
export function promptFor(task: Task): string {
  const marker = `TG-TASK ${task.kind} ${task.token}${task.path ? ` ${task.path}` : ''}`;
  return `${marker}\nThis is an automated test of a gateway. Use your tools as asked, then reply with the final text you are given.`;
}

export const fileContent = (token: string): string => `tg-file-${token}`;
/** The shell command prints this only when a shell ran it ($((6*7)) evaluated). */
export const shellOutput = (token: string): string => `tg-42-${token}`;
/** What the MCP server of ./mcp-server.mjs answers to the `mcp` task's call. */
export const stampedText = (token: string): string => `stamped:tg-mcp-${token}`;
export const reasoningText = (token: string): string => `Thinking rz-${token}: the task needs one tool call.`;
export const doneText = (token: string): string => `TG-DONE ${token}`;

const PATH_KEYS = /^(file_?path|path|absolute_?path|filename|file)$/i;
const CONTENT_KEYS = /^(content|contents|file_?text|text|data)$/i;
const COMMAND_KEYS = /^(command|cmd)$/;

function properties(tool: ToolView): Json {
  const props = tool.parameters?.properties;
  return props && typeof props === 'object' ? props : {};
}

function typeOf(schema: Json | undefined): string {
  const type = schema?.type;
  return String(Array.isArray(type) ? type.find((t) => t !== 'null') : type ?? '').toLowerCase();
}

export function writeTool(tools: ToolView[]): ToolView | undefined {
  return tools.find((tool) => {
    const keys = Object.keys(properties(tool));
    return keys.some((k) => PATH_KEYS.test(k)) && keys.some((k) => CONTENT_KEYS.test(k)) && !/edit|replace|notebook/i.test(tool.name);
  });
}

export function shellTool(tools: ToolView[]): ToolView | undefined {
  const candidates = tools.filter((tool) => Object.keys(properties(tool)).some((k) => COMMAND_KEYS.test(k)));
  return candidates.find((tool) => /bash|shell|exec|command/i.test(tool.name)) ?? candidates[0];
}

/** The MCP server's tool, whatever prefix the agent gives it (mcp__tg__tg_stamp, tg_tg_stamp, …). */
export function mcpTool(tools: ToolView[]): ToolView | undefined {
  return tools.find((tool) => /tg_stamp$/.test(tool.name) && 'text' in properties(tool));
}

/** Qwen Code declares MCP tools deferred: named in a reminder, called through its `tool_call` tool
 *  ({name, arguments}). */
function deferredCall(tools: ToolView[], bodyText: string, token: string): ToolCallMove['call'] | undefined {
  const caller = tools.find((tool) => {
    const props = properties(tool);
    return typeOf(props.name) === 'string' && typeOf(props.arguments) === 'object';
  });
  const name = /"((?:mcp__)?[A-Za-z0-9_]*tg_stamp)\\?"/.exec(bodyText)?.[1];
  if (!caller || !name) return undefined;
  return { name: caller.name, args: callWith(caller, { name, arguments: { text: `tg-mcp-${token}` } }) };
}

export function searchTool(tools: ToolView[]): ToolView | undefined {
  return tools.find((tool) => /tool_?search/i.test(tool.name) && 'query' in properties(tool));
}

/** A plain value for a required parameter the task has nothing to say about. */
function filler(name: string, schema: Json | undefined): unknown {
  if (Array.isArray(schema?.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema && 'default' in schema) return schema.default;
  const type = typeOf(schema);
  if (type === 'string') return /desc|title|reason|explan/i.test(name) ? 'automated test step' : '';
  if (type === 'number' || type === 'integer') return typeof schema?.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  return {};
}

function callWith(tool: ToolView, values: Json): Json {
  const props = properties(tool);
  const required: string[] = Array.isArray(tool.parameters?.required) ? tool.parameters.required : [];
  const args: Json = {};
  for (const [key, value] of Object.entries(values)) if (key in props) args[key] = value;
  for (const key of required) if (!(key in args)) args[key] = filler(key, props[key]);
  return args;
}

function shellCall(tool: ToolView, command: string): Json {
  const props = properties(tool);
  const key = Object.keys(props).find((k) => COMMAND_KEYS.test(k))!;
  // Codex's older `shell` tool takes argv: ["bash", "-lc", "…"].
  const value = typeOf(props[key]) === 'array' ? ['bash', '-lc', command] : command;
  return callWith(tool, { [key]: value });
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The upstream's next answer. `started`: an assistant turn already follows the task's prompt (the tool
 * loop is under way); `bodyText`: the whole request, to see whether the tool's result (and, where the
 * wire format carries it back, `reasoningComesBack`, the call's reasoning) came back.
 */
export function nextMove(task: Task, tools: ToolView[], started: boolean, bodyText: string, reasoningComesBack = true): Move {
  if (started) return { text: finalText(task, bodyText, reasoningComesBack) };
  const shell = shellTool(tools);
  if (task.kind === 'write') {
    const writer = writeTool(tools);
    if (writer) {
      const props = properties(writer);
      const pathKey = Object.keys(props).find((k) => PATH_KEYS.test(k))!;
      const contentKey = Object.keys(props).find((k) => CONTENT_KEYS.test(k))!;
      return { call: { name: writer.name, args: callWith(writer, { [pathKey]: task.path, [contentKey]: `${fileContent(task.token)}\n` }) } };
    }
    if (shell) return { call: { name: shell.name, args: shellCall(shell, `printf '%s\\n' ${quote(fileContent(task.token))} > ${quote(task.path ?? 'tg-file.txt')}`) } };
    return { text: `TG-NO-TOOL write ${task.token}: no write or shell tool among ${tools.map((t) => t.name).join(', ')}` };
  }
  if (task.kind === 'search') {
    const search = searchTool(tools);
    if (!search) return { text: `TG-NO-TOOL search ${task.token}: no tool search among ${tools.map((t) => t.name).join(', ')}` };
    return { call: { name: search.name, args: callWith(search, { query: 'web fetch' }) } };
  }
  if (task.kind === 'mcp') {
    const stamp = mcpTool(tools);
    const deferred = stamp ? undefined : deferredCall(tools, bodyText, task.token);
    if (deferred) return { call: deferred };
    if (!stamp) return { text: `TG-NO-TOOL mcp ${task.token}: no tg_stamp tool among ${tools.map((t) => t.name).join(', ')}` };
    return { call: { name: stamp.name, args: callWith(stamp, { text: `tg-mcp-${task.token}` }), ...(stamp.namespace ? { namespace: stamp.namespace } : {}) } };
  }
  if (!shell) return { text: `TG-NO-TOOL shell ${task.token}: no shell tool among ${tools.map((t) => t.name).join(', ')}` };
  const move: ToolCallMove = { call: { name: shell.name, args: shellCall(shell, `echo tg-$((6*7))-${task.token}`) } };
  if (task.kind === 'reason') move.reasoning = reasoningText(task.token);
  return move;
}

function finalText(task: Task, bodyText: string, reasoningComesBack: boolean): string {
  if (task.kind === 'reason' && reasoningComesBack && !bodyText.includes(`rz-${task.token}`)) {
    return `TG-REASONING-LOST ${task.token}: the reasoning of the call did not come back`;
  }
  if (task.kind === 'mcp' && !bodyText.includes(stampedText(task.token))) {
    return `TG-NO-OUTPUT ${task.token}: the MCP tool's answer did not come back`;
  }
  if ((task.kind === 'shell' || task.kind === 'reason') && !bodyText.includes(shellOutput(task.token))) {
    return `TG-NO-OUTPUT ${task.token}: the command's output did not come back`;
  }
  return doneText(task.token);
}
