#!/usr/bin/env bash
# The production image's runtime stage without Docker: the tree scripts/runtime-tree.mjs writes,
# production dependencies only (npm ci --omit=dev --ignore-scripts, as the Dockerfile runs it), and
# the API started the way the image's CMD starts it. Passes when /v1/health answers 200 and SIGTERM
# ends the process with exit code 0. Needs `npm run build` first; embedded mode, so no services.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
port="${CHECK_PORT:-18480}"
trap 'rm -rf "$work"' EXIT

node scripts/runtime-tree.mjs "$work/app"
(cd "$work/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)

(
  cd "$work/app"
  NODE_ENV=production NODE_OPTIONS=--conditions=ams-dist DATA_DIR="$work/data" HOST=127.0.0.1 PORT="$port" \
    EMBEDDING_PROVIDER=lexical DATABASE_URL= REDIS_URL= exec node services/api/dist/server.js
) &
pid=$!

healthy=""
for _ in $(seq 1 120); do
  if curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null; then healthy=yes; break; fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 1
done
if [ -z "$healthy" ]; then
  echo "check-runtime-tree: the built API never answered /v1/health" >&2
  kill -KILL "$pid" 2>/dev/null || true
  exit 1
fi

kill -TERM "$pid"
code=0
wait "$pid" || code=$?
if [ "$code" -ne 0 ]; then
  echo "check-runtime-tree: the built API exited $code on SIGTERM (expected 0)" >&2
  exit 1
fi
echo "check-runtime-tree: the built API served /v1/health and exited 0 on SIGTERM"
