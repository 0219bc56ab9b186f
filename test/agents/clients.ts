// How each agent CLI is pointed at toolgate: its command line, environment and config files, with no
// login, no telemetry, no update check and nothing fetched at run time. docs/clients.md shows the same
// settings for users.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskKind } from './task.js';

export interface RunSetup {
  /** toolgate's address as the agent sees it (the recorder in front of it), no trailing slash. */
  gatewayUrl: string;
  gatewayKey: string;
  /** toolgate model, e.g. together/Qwen/Qwen3-235B-A22B-Instruct-2507. */
  model: string;
  task: TaskKind;
  prompt: string;
  /** The agent's working folder (its files land there). */
  workspace: string;
  /** A private HOME / config folder for this run. */
  home: string;
  /** node_modules/.bin of test/agents. */
  bin: string;
  /** The MCP server the `mcp` task declares (test/agents/mcp-server.mjs), started with `node`. */
  mcpServer: string;
}

export interface Invocation {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface AgentClient {
  name: string;
  /** Its command in node_modules/.bin. */
  cli: string;
  /** The tasks this agent has a tool for (tool search: only where the agent has one). */
  tasks: readonly TaskKind[];
  invocation(setup: RunSetup): Invocation;
}

/** What every agent gets: a private HOME and XDG folders, so nothing of the machine's user is read. */
function baseEnv(setup: RunSetup): Record<string, string> {
  return {
    HOME: setup.home,
    XDG_CONFIG_HOME: join(setup.home, '.config'),
    XDG_DATA_HOME: join(setup.home, '.local/share'),
    XDG_CACHE_HOME: join(setup.home, '.cache'),
    XDG_STATE_HOME: join(setup.home, '.local/state'),
    // Agents read the git repository around their folder (Claude Code's gitStatus, opencode's project
    // snapshot): the run folder lies inside this checkout, so git discovery stops at the workspace.
    GIT_CEILING_DIRECTORIES: setup.workspace,
    NO_COLOR: '1',
    CI: 'true',
  };
}

const claude: AgentClient = {
  name: 'claude',
  cli: 'claude',
  tasks: ['write', 'shell', 'reason', 'search', 'mcp'],
  invocation(setup) {
    const mcp: string[] = [];
    if (setup.task === 'mcp') {
      const config = join(setup.home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { tg: { command: 'node', args: [setup.mcpServer] } } }));
      mcp.push('--mcp-config', config, '--strict-mcp-config');
    }
    return {
      command: join(setup.bin, 'claude'),
      args: ['-p', setup.prompt, '--model', setup.model, '--permission-mode', 'bypassPermissions', '--output-format', 'text', ...mcp],
      env: {
        ANTHROPIC_BASE_URL: setup.gatewayUrl,
        ANTHROPIC_API_KEY: setup.gatewayKey,
        ANTHROPIC_MODEL: setup.model,
        ANTHROPIC_SMALL_FAST_MODEL: setup.model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: setup.model,
        CLAUDE_CONFIG_DIR: join(setup.home, '.claude'),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        // bypassPermissions as root is refused unless Claude Code is told it runs in a sandbox.
        IS_SANDBOX: '1',
        ENABLE_TOOL_SEARCH: setup.task === 'search' ? 'true' : 'false',
        ...(setup.task === 'reason' ? { MAX_THINKING_TOKENS: '2048' } : {}),
      },
    };
  },
};

/** Codex; `topLevel` and `tables` are config.toml lines added before and after the provider's. */
function codexClient(name: string, topLevel: string[] = [], tables: string[] = []): AgentClient {
  return {
    name,
    cli: 'codex',
    tasks: ['write', 'shell', 'reason', 'mcp'],
    invocation(setup) {
      const codexHome = join(setup.home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      const mcp = setup.task === 'mcp' ? ['[mcp_servers.tg]', 'command = "node"', `args = [${JSON.stringify(setup.mcpServer)}]`, ''] : [];
      const reasoning = setup.task === 'reason' ? ['model_reasoning_effort = "medium"', 'model_reasoning_summary = "auto"'] : [];
      writeFileSync(
        join(codexHome, 'config.toml'),
        [
          `model = ${JSON.stringify(setup.model)}`,
          'model_provider = "toolgate"',
          'check_for_update_on_startup = false',
          ...topLevel,
          ...reasoning,
          '',
          '[model_providers.toolgate]',
          'name = "toolgate"',
          `base_url = ${JSON.stringify(`${setup.gatewayUrl}/v1`)}`,
          'env_key = "TOOLGATE_API_KEY"',
          'wire_api = "responses"',
          '',
          '[analytics]',
          'enabled = false',
          '',
          '[otel]',
          'exporter = "none"',
          '',
          // Plugins: at start Codex syncs its curated plugin marketplace (github.com) and warms the
          // remote plugin catalogue (chatgpt.com).
          '[features]',
          'plugins = false',
          'remote_plugin = false',
          'plugin_sharing = false',
          '',
          ...tables,
          ...mcp,
        ].join('\n'),
      );
      return {
        command: join(setup.bin, 'codex'),
        args: ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-C', setup.workspace, setup.prompt],
        env: { CODEX_HOME: codexHome, TOOLGATE_API_KEY: setup.gatewayKey },
      };
    },
  };
}

const codex = codexClient('codex');
/** Codex with its multi-agent tools (a `namespace` tool) and hosted web search off: what a user can do
 *  on a bridged upstream until #47 (its MCP servers still come as `namespace` tools). */
const codexPlain = codexClient('codex-plain', ['web_search = "disabled"'], ['[agents]', 'enabled = false', '']);

const opencode: AgentClient = {
  name: 'opencode',
  cli: 'opencode',
  tasks: ['write', 'shell', 'reason', 'mcp'],
  invocation(setup) {
    const config = join(setup.home, 'opencode.json');
    writeFileSync(
      config,
      JSON.stringify(
        {
          provider: {
            toolgate: {
              npm: '@ai-sdk/openai-compatible',
              name: 'toolgate',
              options: { baseURL: `${setup.gatewayUrl}/v1`, apiKey: setup.gatewayKey },
              models: { [setup.model]: { name: setup.model, tool_call: true, reasoning: setup.task === 'reason' } },
            },
          },
          model: `toolgate/${setup.model}`,
          small_model: `toolgate/${setup.model}`,
          permission: { edit: 'allow', bash: 'allow', external_directory: 'allow' },
          ...(setup.task === 'mcp' ? { mcp: { tg: { type: 'local', command: ['node', setup.mcpServer], enabled: true } } } : {}),
          autoupdate: false,
          share: 'disabled',
        },
        null,
        2,
      ),
    );
    return {
      command: join(setup.bin, 'opencode'),
      args: ['run', '--model', `toolgate/${setup.model}`, setup.prompt],
      env: {
        OPENCODE_CONFIG: config,
        OPENCODE_DISABLE_AUTOUPDATE: 'true',
        OPENCODE_DISABLE_MODELS_FETCH: 'true',
        OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
        OPENCODE_DISABLE_SHARE: 'true',
        OPENCODE_DISABLE_EXTERNAL_SKILLS: 'true',
        OPENCODE_DISABLE_CLAUDE_CODE: 'true',
        OPENCODE_PURE: 'true',
        // opencode installs @opencode-ai/plugin into each config folder in the background at every
        // start (a failure is only a logged warning): offline, on a dead loopback registry, it fetches nothing.
        npm_config_offline: 'true',
        npm_config_registry: 'http://127.0.0.1:9/',
      },
    };
  },
};

const qwen: AgentClient = {
  name: 'qwen',
  cli: 'qwen',
  tasks: ['write', 'shell', 'reason', 'search', 'mcp'],
  invocation(setup) {
    const settingsDir = join(setup.home, '.qwen');
    mkdirSync(settingsDir, { recursive: true });
    writeFileSync(
      join(settingsDir, 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'openai' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        // Its one-shot default (child_process) now and then reports a command's output as "(empty)"
        // (3 of 24 runs here; QwenLM/qwen-code#3520); its PTY shell did not in 48.
        tools: { shell: { enableInteractiveShell: true } },
        ...(setup.task === 'mcp' ? { mcpServers: { tg: { command: 'node', args: [setup.mcpServer], trust: true } } } : {}),
      }),
    );
    return {
      command: join(setup.bin, 'qwen'),
      args: ['-p', setup.prompt, '--yolo', '--auth-type', 'openai', '--model', setup.model],
      env: { OPENAI_BASE_URL: `${setup.gatewayUrl}/v1`, OPENAI_API_KEY: setup.gatewayKey, OPENAI_MODEL: setup.model },
    };
  },
};

export const AGENTS: readonly AgentClient[] = [claude, codex, codexPlain, opencode, qwen];

export function environment(setup: RunSetup, invocation: Invocation, path: string): Record<string, string> {
  return { PATH: path, ...baseEnv(setup), ...invocation.env };
}
