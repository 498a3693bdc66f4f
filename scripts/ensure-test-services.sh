#!/usr/bin/env bash
# npm test's pre-step: the tests need PostgreSQL with pgvector, Redis, and Debian's python3-onnx
# (to generate a tiny test model). When all are there this is quick; when something is missing on
# Debian it runs infra/setup-services.sh (idempotent); elsewhere it says what to install. Last, it
# turns a local test cluster's durability off (test_cluster_without_durability below).
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

# TEST-ONLY: a test cluster on this machine runs with fsync, synchronous_commit and full_page_writes
# off. Test databases are thrown away after the run, so what a crash could lose does not matter, and
# the suite's thousands of small commits stop waiting for the disk. ALTER SYSTEM writes them to the
# cluster's postgresql.auto.conf and a reload applies them (no restart). Production never runs this:
# infra/Dockerfile and docker-compose.yml keep PostgreSQL's durable defaults. Only for a server on
# this machine; TEST_PG_DURABLE=1 leaves the cluster as it is (e.g. a developer's own cluster).
test_cluster_without_durability() {
  [ "${TEST_PG_DURABLE:-}" = 1 ] && return 0
  [[ $(host_of "$ADMIN_URL") =~ ^(127\.0\.0\.1|localhost|::1)$ ]] || return 0
  command -v psql >/dev/null || return 0
  [ "$(psql "$ADMIN_URL" -tAc 'SHOW fsync' 2>/dev/null)" = on ] || return 0
  echo '[pretest] test cluster: fsync, synchronous_commit and full_page_writes off (TEST_PG_DURABLE=1 keeps them on)'
  psql -q "$ADMIN_URL" -v ON_ERROR_STOP=1 \
    -c 'ALTER SYSTEM SET fsync = off' -c 'ALTER SYSTEM SET synchronous_commit = off' \
    -c 'ALTER SYSTEM SET full_page_writes = off' -c 'SELECT pg_reload_conf()' >/dev/null ||
    echo '[pretest] could not change them (not a superuser?): the tests run all the same, slower'
}

# TEST-ONLY: a streaming replica of a local test cluster on port 5433, for the read-replica tests
# (scripts/test-replica.sh). TEST_DATABASE_REPLICA_URL pointing elsewhere: the caller provides it.
test_replica() {
  [ -z "${TEST_DATABASE_REPLICA_URL:-}" ] || return 0
  [[ $(host_of "$ADMIN_URL") =~ ^(127\.0\.0\.1|localhost)$ ]] || return 0
  command -v psql >/dev/null || return 0
  bash scripts/test-replica.sh ensure ||
    echo '[pretest] no streaming replica on 127.0.0.1:5433: the read-replica suites will fail (see scripts/test-replica.sh)'
}

if [ ${#missing[@]} -eq 0 ]; then test_cluster_without_durability; test_replica; exit 0; fi

printf '[pretest] missing: %s\n' "${missing[@]}"
local_services() { [[ $(host_of "$ADMIN_URL") =~ ^(127\.0\.0\.1|localhost|::1)$ && $(host_of "$REDIS_URL") =~ ^(127\.0\.0\.1|localhost|::1)$ ]]; }
if [ -f /etc/debian_version ] && local_services && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
  echo '[pretest] installing and starting them: bash infra/setup-services.sh'
  bash infra/setup-services.sh
  test_cluster_without_durability
  test_replica
  exit 0
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
