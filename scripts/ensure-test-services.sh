#!/usr/bin/env bash
# npm test's pre-step: the tests need PostgreSQL with pgvector, Redis, and Debian's python3-onnx
# (to generate a tiny test model). When all are there this is a quick no-op; when something is
# missing on Debian it runs infra/setup-services.sh (idempotent); elsewhere it says what to install.
set -euo pipefail
cd "$(dirname "$0")/.."

ADMIN_URL=${TEST_DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379}

# host and port of a URL (scheme://[user[:pw]@]host[:port]/...), with a default port.
host_of() { local h=${1#*://}; h=${h#*@}; h=${h%%/*}; echo "${h%%:*}"; }
port_of() { local h=${1#*://}; h=${h#*@}; h=${h%%/*}; [[ $h == *:* ]] && echo "${h##*:}" || echo "$2"; }
reachable() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

missing=()
reachable "$(host_of "$ADMIN_URL")" "$(port_of "$ADMIN_URL" 5432)" || missing+=("PostgreSQL at $ADMIN_URL")
reachable "$(host_of "$REDIS_URL")" "$(port_of "$REDIS_URL" 6379)" || missing+=("Redis at $REDIS_URL")
if [ ${#missing[@]} -eq 0 ] && command -v psql >/dev/null; then
  [ "$(psql "$ADMIN_URL" -tAc "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'" 2>/dev/null)" = 1 ] ||
    missing+=("pgvector in PostgreSQL at $ADMIN_URL")
fi
PYTHON=/usr/bin/python3; [ -x "$PYTHON" ] || PYTHON=python3
"$PYTHON" -c 'import onnx, numpy' 2>/dev/null || missing+=("python3 with onnx and numpy")
[ -f /usr/share/dict/words ] || missing+=("a word list at /usr/share/dict/words")

[ ${#missing[@]} -eq 0 ] && exit 0

printf '[pretest] missing: %s\n' "${missing[@]}"
local_services() { [[ $(host_of "$ADMIN_URL") =~ ^(127\.0\.0\.1|localhost|::1)$ && $(host_of "$REDIS_URL") =~ ^(127\.0\.0\.1|localhost|::1)$ ]]; }
if [ -f /etc/debian_version ] && local_services && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
  echo '[pretest] installing and starting them: bash infra/setup-services.sh'
  exec bash infra/setup-services.sh
fi
cat >&2 <<'HELP'
[pretest] The tests need, on this machine or where TEST_DATABASE_ADMIN_URL / TEST_REDIS_URL point:
  - PostgreSQL >= 15 with pgvector >= 0.7, a superuser reachable without a password (or in the URL)
  - Redis >= 6
  - python3 with the onnx and numpy modules, and a word list at /usr/share/dict/words
On Debian as root (or with sudo): bash infra/setup-services.sh does all of it.
Elsewhere, e.g. macOS: brew install postgresql@16 pgvector redis && pip3 install onnx numpy
HELP
exit 1
