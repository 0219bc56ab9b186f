// Runs that fail today for a known reason, each naming its issue. The suite passes when exactly
// these fail, each for its reason (`sign`: text one of the run's problems must contain; a known run
// failing for another reason is an unexpected failure). One that starts passing fails the suite until
// it is taken off this list. Keys: <agent>/<route>/<task>; `*` stands for any route or task.

export interface KnownFailure {
  issue: string;
  sign: string;
}

const CODEX_TOOL_TYPES: KnownFailure = {
  issue: "#47: Codex's default `namespace` (multi_agent_v1) and `web_search` tools are refused with 400 unsupported_tool_type on the Responses bridge",
  sign: 'unsupported_tool_type',
};

const CODEX_MCP_NAMESPACE: KnownFailure = {
  issue: "#47: Codex declares an MCP server's tools as a `namespace` tool, refused with 400 unsupported_tool_type on the Responses bridge",
  sign: 'unsupported_tool_type',
};

export const KNOWN_FAILURES: Readonly<Record<string, KnownFailure>> = {
  'codex/hermes/*': CODEX_TOOL_TYPES,
  'codex/xml/*': CODEX_TOOL_TYPES,
  'codex/gemini/*': CODEX_TOOL_TYPES,
  'codex-plain/hermes/mcp': CODEX_MCP_NAMESPACE,
  'codex-plain/xml/mcp': CODEX_MCP_NAMESPACE,
  'codex-plain/gemini/mcp': CODEX_MCP_NAMESPACE,
};

export function knownFailure(run: string): KnownFailure | undefined {
  const [agent, route, task] = run.split('/');
  for (const [key, known] of Object.entries(KNOWN_FAILURES)) {
    const [a, r, t] = key.split('/');
    if (a === agent && (r === '*' || r === route) && (t === '*' || t === task)) return known;
  }
  return undefined;
}
