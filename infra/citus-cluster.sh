#!/usr/bin/env bash
# A Citus cluster on this machine for tests and the bench: a coordinator and N workers, each its own
# PostgreSQL cluster (initdb) on its own port, with pgvector. Idempotent: finds or builds Citus, then
# initialises, starts and registers whatever is not there yet.
#
#   bash infra/citus-cluster.sh up            # build if missing, init, start, add the workers
#   bash infra/citus-cluster.sh add-worker    # one more worker (port after the last), started, added
#   bash infra/citus-cluster.sh stop|start NODE   # NODE: coordinator, worker1, worker2, ...
#   bash infra/citus-cluster.sh down          # stop every node (data kept)
#   bash infra/citus-cluster.sh status
#
# Citus comes from the operator's usual channel when installed (citus.so in PostgreSQL's pkglibdir);
# otherwise it is built from CITUS_SOURCE, a release tarball (default: the vendored copy this
# repository's CI machines carry). The build needs Debian packages only. Needs root (or sudo).
set -euo pipefail

log() { printf '[citus-cluster] %s\n' "$*"; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

CITUS_SOURCE=${CITUS_SOURCE:-/work/shared/vendor/citus-13.2.2.tar.gz}
# The vendor's patch for PostgreSQL 15.20's headers, applied when present beside the tarball.
CITUS_PATCH=${CITUS_PATCH:-$(dirname "$CITUS_SOURCE")/citus-13.2.2-pg15-have_createdb_privilege.patch}
CITUS_DIR=${CITUS_DIR:-/var/lib/postgresql/citus}
CITUS_PORT=${CITUS_PORT:-9700}            # the coordinator; workers on the ports after it
CITUS_WORKERS=${CITUS_WORKERS:-2}
CITUS_HOST=127.0.0.1

PG_MAJOR=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -n 1)
PG_MAJOR=${PG_MAJOR:-15}
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PG_BIN/pg_config

as_postgres() { if [ "$(id -un)" = postgres ]; then "$@"; else $SUDO runuser -u postgres -- "$@"; fi; }
psql_at() { local port=$1; shift; psql -X -q -v ON_ERROR_STOP=1 -h "$CITUS_HOST" -p "$port" -U postgres "$@"; }

apt_updated=0
apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ $apt_updated -eq 0 ]; then $SUDO apt-get -o Acquire::Languages=en update -qq; apt_updated=1; fi
  log "installing ${missing[*]}"
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
}

ensure_citus() {
  if [ -f "$($PG_CONFIG --pkglibdir)/citus.so" ]; then
    log "Citus installed: $(grep -E '^default_version' "$($PG_CONFIG --sharedir)/extension/citus.control")"
    return 0
  fi
  [ -f "$CITUS_SOURCE" ] || { log "Citus is not installed and CITUS_SOURCE ($CITUS_SOURCE) is missing: install Citus for PostgreSQL $PG_MAJOR or point CITUS_SOURCE at a release tarball"; exit 1; }
  apt_install "postgresql-server-dev-$PG_MAJOR" build-essential libzstd-dev liblz4-dev libcurl4-openssl-dev libkrb5-dev
  local work; work=$(mktemp -d)
  tar -xzf "$CITUS_SOURCE" -C "$work" --strip-components=1
  if [ -f "$CITUS_PATCH" ] && (cd "$work" && patch -p1 -N --dry-run -s < "$CITUS_PATCH" >/dev/null 2>&1); then
    log "applying $(basename "$CITUS_PATCH")"
    (cd "$work" && patch -p1 -N -s < "$CITUS_PATCH")
  fi
  log "building Citus from $CITUS_SOURCE (a couple of minutes)"
  (cd "$work" && ./configure PG_CONFIG="$PG_CONFIG" >"$work/configure.log" 2>&1 &&
    make -s -j"$(nproc)" >"$work/make.log" 2>&1) || { log "build failed:"; tail -n 30 "$work"/*.log; exit 1; }
  $SUDO make -s -C "$work" install >"$work/install.log" 2>&1 || { log "install failed:"; tail -n 30 "$work/install.log"; exit 1; }
  rm -rf "$work"
  log "Citus built and installed"
}

# The Nth node: 0 is the coordinator.
node_name() { [ "$1" -eq 0 ] && echo coordinator || echo "worker$1"; }
node_port() { echo $((CITUS_PORT + $1)); }
node_dir() { echo "$CITUS_DIR/$(node_name "$1")"; }
node_index() { [ "$1" = coordinator ] && echo 0 || echo "${1#worker}"; }

init_node() {
  local i=$1 dir port; dir=$(node_dir "$i"); port=$(node_port "$i")
  [ -f "$dir/PG_VERSION" ] && return 0
  log "initdb $(node_name "$i") on port $port"
  $SUDO mkdir -p "$CITUS_DIR"; $SUDO chown postgres:postgres "$CITUS_DIR"
  as_postgres "$PG_BIN/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  # logical wal: shard moves (citus_rebalance_start) copy with logical replication while writes go on.
  as_postgres tee -a "$dir/postgresql.conf" >/dev/null <<CONF
port = $port
listen_addresses = '$CITUS_HOST'
unix_socket_directories = '$CITUS_DIR'
shared_preload_libraries = 'citus'
wal_level = logical
max_replication_slots = 20
max_wal_senders = 20
max_connections = 300
shared_buffers = 64MB
CONF
}

# TEST-ONLY, as the test cluster (scripts/ensure-test-services.sh): no fsync, no waiting for WAL
# flushes, no full-page writes; its databases are thrown away, and a Citus write commits on two
# nodes (two-phase commit), each flush a wait. Given at start, so nodes made before this apply it
# too. TEST_PG_DURABLE=1 keeps the defaults.
start_options() {
  [ "${TEST_PG_DURABLE:-0}" = 1 ] && return 0
  printf '%s' '-c fsync=off -c synchronous_commit=off -c full_page_writes=off'
}

start_node() {
  local i=$1 dir port; dir=$(node_dir "$i"); port=$(node_port "$i")
  if as_postgres "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1; then return 0; fi
  log "starting $(node_name "$i") on port $port"
  as_postgres "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -o "$(start_options)" -w -t 60 start >/dev/null
}

stop_node() {
  local dir; dir=$(node_dir "$1")
  as_postgres "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1 || return 0
  log "stopping $(node_name "$1")"
  as_postgres "$PG_BIN/pg_ctl" -D "$dir" -m fast -w stop >/dev/null
}

# Citus' metadata is per database: the extensions on every node, the workers registered on the
# coordinator. Done here for the `postgres` database, which the test setup reads the topology from
# (test databases are registered the same way by @ams/testing's createCitusDatabase).
register_workers() {
  local n=$1 i
  for i in $(seq 0 "$n"); do
    # Asked first: a worker holding the cluster's metadata refuses even CREATE EXTENSION IF NOT EXISTS.
    for ext in citus vector; do
      [ "$(psql_at "$(node_port "$i")" -d postgres -tA -c "SELECT count(*) FROM pg_extension WHERE extname = '$ext'")" = 1 ] ||
        psql_at "$(node_port "$i")" -d postgres -c "CREATE EXTENSION $ext"
    done
  done
  psql_at "$(node_port 0)" -d postgres -c "SELECT citus_set_coordinator_host('$CITUS_HOST', $(node_port 0))" >/dev/null
  for i in $(seq 1 "$n"); do
    psql_at "$(node_port 0)" -d postgres -tA -c "SELECT citus_add_node('$CITUS_HOST', $(node_port "$i"))
      WHERE NOT EXISTS (SELECT 1 FROM pg_dist_node WHERE nodeport = $(node_port "$i"))" >/dev/null
  done
}

existing_workers() { local n=0; while [ -f "$(node_dir $((n + 1)))/PG_VERSION" ]; do n=$((n + 1)); done; echo "$n"; }

ensure_pgvector() {
  [ -f "$($PG_CONFIG --sharedir)/extension/vector.control" ] && return 0
  log "pgvector missing: running infra/setup-services.sh"
  bash "$(dirname "$0")/setup-services.sh"
}

up() {
  ensure_pgvector
  ensure_citus
  local n; n=$(existing_workers); [ "$n" -ge "$CITUS_WORKERS" ] || n=$CITUS_WORKERS
  for i in $(seq 0 "$n"); do init_node "$i"; start_node "$i"; done
  register_workers "$n"
  log "coordinator postgres://postgres@$CITUS_HOST:$(node_port 0)/postgres, $n workers: $(psql_at "$(node_port 0)" -d postgres -tA -c "SELECT string_agg(nodeport::text, ',' ORDER BY nodeport) FROM pg_dist_node WHERE groupid <> 0")"
}

case "${1:-up}" in
  up) up ;;
  add-worker)
    n=$(( $(existing_workers) + 1 )); init_node "$n"; start_node "$n"; register_workers "$n"
    log "worker$n on port $(node_port "$n")" ;;
  start) i=$(node_index "${2:?node}"); start_node "$i" ;;
  stop) i=$(node_index "${2:?node}"); stop_node "$i" ;;
  down) n=$(existing_workers); for i in $(seq "$n" -1 0); do stop_node "$i"; done ;;
  status)
    n=$(existing_workers)
    for i in $(seq 0 "$n"); do
      printf '%-12s %s %s\n' "$(node_name "$i")" "$(node_port "$i")" \
        "$(as_postgres "$PG_BIN/pg_ctl" -D "$(node_dir "$i")" status >/dev/null 2>&1 && echo running || echo stopped)"
    done ;;
  *) echo "usage: $0 [up|add-worker|start NODE|stop NODE|down|status]" >&2; exit 2 ;;
esac
