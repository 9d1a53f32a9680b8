#!/usr/bin/env bash
# Install the agent platforms the platform suite drives (tests/platforms), each pinned by
# its own package.json + package-lock.json in tests/platforms/<platform>/, into that
# folder's node_modules (git-ignored). Nothing is fetched later: the suite runs offline.
# Python packages (claude-agent-sdk) come with the test extras of pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null 2>&1; then
  echo "npm not found: the platform suite needs Node.js 20+ and npm" >&2
  exit 1
fi
for manifest in tests/platforms/*/package.json; do
  [ -e "$manifest" ] || continue
  dir=$(dirname "$manifest")
  # npm writes node_modules/.package-lock.json on every install: newer than the lock = current.
  if [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then continue; fi
  scripts/timed "npm ci ($(basename "$dir"))" sh -c "cd '$dir' && npm ci --no-audit --no-fund"
done
