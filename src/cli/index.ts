#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/load.js';
import { checkConfigCommand } from './check-config.js';
import { lintCommand } from './lint.js';
import { packageVersion } from '../config/paths.js';
import { SERVE_OPTIONS, serveFromArgs } from './serve.js';

// The `toolgate` command (package.json "bin"). Each subcommand lives in its own file.

export const HELP = `toolgate: an OpenAI-compatible gateway that makes tool calling work on every upstream.

Usage:
  toolgate [serve] [--config <file>] [--port <n>] [--host <addr>]
      Start the gateway. Config: --config, else $TOOLGATE_CONFIG, else ./config/gateway.yaml,
      else the config shipped with toolgate (the built-in simulator answers when no key is set).
      --port overrides $PORT and server.port; --host overrides $HOST and server.host.
  toolgate lint <file.json> [--config <file>] [--json]
      What toolgate would repair in a saved chat completions request (or a bare messages array),
      and why, without calling anything. Exit code 0: valid or repairable; 1: the history cannot
      be repaired (a gateway would answer 400); 2: the file is not a chat request.
  toolgate check-config [file]
      Validate a config and print it resolved (env placeholders, defaults) with secrets masked.
      Exit code 1 when it is invalid.
  toolgate --version | --help

Docs: README.md and docs/ (shipped in the package).
`;

function fail(message: string): number {
  process.stderr.write(`toolgate: ${message}\nRun toolgate --help for usage.\n`);
  return 2;
}

/** Runs one subcommand; returns its exit code, or null when the gateway is left running. */
export function runCli(argv: string[]): number | null {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  try {
    if (first === 'lint') {
      const { values, positionals } = parseArgs({ args: rest, options: { config: SERVE_OPTIONS.config, json: { type: 'boolean' } }, allowPositionals: true });
      if (positionals.length !== 1) return fail('lint takes exactly one file');
      return lintCommand(positionals[0], values);
    }
    if (first === 'check-config') {
      const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true });
      if (positionals.length > 1) return fail('check-config takes at most one file');
      return checkConfigCommand(positionals[0]);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`toolgate: ${error.message}\n`);
      return 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) return fail(error.message);
    throw error;
  }
  if (first === undefined || first.startsWith('-')) serveFromArgs(argv);
  else if (first === 'serve') serveFromArgs(rest);
  else return fail(`unknown command '${first}'`);
  return null;
}

const code = runCli(process.argv.slice(2));
if (code !== null) process.exitCode = code;
