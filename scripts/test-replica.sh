#!/usr/bin/env bash
# TEST-ONLY: a streaming replica of the local test cluster, on this machine, for the read-replica
# tests (services/api/test/integration/read-replicas*.test.ts). A physical replica replays the whole
# cluster, so the run's template and per-worker clones appear on it with no extra step.
#
#   bash scripts/test-replica.sh ensure   make it (pg_basebackup -R) unless it exists; start it; wait
#   bash scripts/test-replica.sh start    start it (the fault tests stop it)
#   bash scripts/test-replica.sh stop     stop it (fast shutdown: its sessions are cut)
#   bash scripts/test-replica.sh pause    freeze its processes (SIGSTOP): a replica that hangs, sessions open
#   bash scripts/test-replica.sh resume   let them run again (SIGCONT)
#   bash scripts/test-replica.sh status   exit 0 when it answers as a standby
#
# Only for a PostgreSQL on this machine (TEST_DATABASE_ADMIN_URL on 127.0.0.1/localhost). It runs
# the server binaries as the `postgres` user (they refuse root). The primary must stream: wal_level
# replica and max_wal_senders > 0 (Debian's defaults), and pg_hba.conf must let `replication`
# connect over 127.0.0.1 (a line is added when missing; Debian's `all` does not cover it).
# wal_keep_size keeps enough WAL on the primary for the replica to catch up after the tests stop it.
#
# With the test cluster's durability off (scripts/ensure-test-services.sh): fsync and
# full_page_writes off do not change what streams (pg_basebackup forces full-page writes while it
# copies); synchronous_commit off means a commit returns before its WAL is flushed, and WAL is
# streamed only once flushed (by the WAL writer, within wal_writer_delay), so the replica trails by
# up to ~200 ms more, and pg_current_wal_lsn() can be behind a commit that has returned: the API's
# fences read pg_current_wal_insert_lsn() (packages/db/src/repositories/replication.repository.ts).
# The copy inherits those settings (postgresql.auto.conf): a crash loses it, and `ensure` makes it again.
set -euo pipefail

ADMIN_URL=${TEST_DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
REPLICA_PORT=${TEST_REPLICA_PORT:-5433}
REPLICA_DIR=${TEST_REPLICA_DIR:-/var/lib/postgresql/ams-test-replica}

# A frozen replica (pause) must not hang this script's own checks.
export PGCONNECT_TIMEOUT=${PGCONNECT_TIMEOUT:-5}
log() { printf '[test-replica] %s\n' "$*"; }
host_of() { local h=${1#*://}; h=${h#*@}; h=${h%%/*}; echo "${h%%:*}"; }
port_of() { local h=${1#*://}; h=${h#*@}; h=${h%%/*}; [[ $h == *:* ]] && echo "${h##*:}" || echo 5432; }
PRIMARY_HOST=$(host_of "$ADMIN_URL")
PRIMARY_PORT=$(port_of "$ADMIN_URL")
REPLICA_URL="postgres://postgres@127.0.0.1:$REPLICA_PORT/postgres"

if ! [[ $PRIMARY_HOST =~ ^(127\.0\.0\.1|localhost)$ ]]; then
  log "the test cluster is not on this machine ($PRIMARY_HOST): point TEST_DATABASE_REPLICA_URL at a replica of it"
  exit 1
fi

PG_BIN=${PG_BIN:-$(pg_config --bindir 2>/dev/null || true)}
if [ ! -x "$PG_BIN/pg_ctl" ]; then
  major=$(psql "$ADMIN_URL" -tAc 'SHOW server_version_num' | cut -c1-2)
  PG_BIN=/usr/lib/postgresql/$major/bin
fi
[ -x "$PG_BIN/pg_ctl" ] || { log "pg_ctl not found (set PG_BIN)"; exit 1; }

# The server binaries as `postgres` when run by root; as the caller otherwise.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

is_standby() { [ "$(psql "$REPLICA_URL" -tAc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = t ]; }
streaming() { [ "$(psql "$REPLICA_URL" -tAc 'SELECT status FROM pg_stat_wal_receiver' 2>/dev/null)" = streaming ]; }
# A standby that cannot stream (the primary recycled the WAL it needs) never catches up.
keeps_up() {
  for _ in $(seq 1 20); do streaming && return 0; sleep 0.5; done
  return 1
}

wait_standby() {
  for _ in $(seq 1 120); do is_standby && return 0; sleep 0.5; done
  log "the replica on $REPLICA_PORT did not come up (log: $REPLICA_DIR/replica.log)"; tail -n 20 "$REPLICA_DIR/replica.log" >&2 || true
  return 1
}

start() {
  is_standby && return 0
  as_owner "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" -l "$REPLICA_DIR/replica.log" -w -t 60 start >/dev/null
  wait_standby
}

stop() {
  [ -f "$REPLICA_DIR/postmaster.pid" ] || return 0
  as_owner "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" -m fast -w -t 60 stop >/dev/null
}

primary_streams() {
  local changed=0
  # The first rule a replication connection from 127.0.0.1 meets must trust it (pg_basebackup has no
  # password to give): Debian's own `host replication all 127.0.0.1/32 scram-sha-256` would win over
  # a line added at the end, so ours goes first.
  local method
  method=$(psql "$ADMIN_URL" -tAc "SELECT auth_method FROM pg_hba_file_rules WHERE type LIKE 'host%' AND 'replication' = ANY(database) AND address IN ('all', 'samehost', '127.0.0.1') ORDER BY line_number LIMIT 1")
  if [ "$method" != trust ]; then
    local hba; hba=$(psql "$ADMIN_URL" -tAc 'SHOW hba_file')
    log "letting replication connect from 127.0.0.1 without a password ($hba, first line)"
    sed -i '1i # ams test replica (scripts/test-replica.sh)\nhost replication all 127.0.0.1/32 trust' "$hba"
    changed=1
  fi
  if [ "$(psql "$ADMIN_URL" -tAc "SELECT setting::bigint < 1024 FROM pg_settings WHERE name = 'wal_keep_size'")" = t ]; then
    psql -q "$ADMIN_URL" -c "ALTER SYSTEM SET wal_keep_size = '1GB'" >/dev/null
    changed=1
  fi
  [ $changed = 0 ] || psql -q "$ADMIN_URL" -c 'SELECT pg_reload_conf()' >/dev/null
  local level senders
  level=$(psql "$ADMIN_URL" -tAc 'SHOW wal_level'); senders=$(psql "$ADMIN_URL" -tAc 'SHOW max_wal_senders')
  if [ "$level" = minimal ] || [ "$senders" = 0 ]; then
    log "the primary cannot stream (wal_level=$level, max_wal_senders=$senders): set wal_level=replica and max_wal_senders>0, then restart it"
    return 1
  fi
}

make_replica() {
  primary_streams
  log "making a streaming replica of $PRIMARY_HOST:$PRIMARY_PORT in $REPLICA_DIR (port $REPLICA_PORT)"
  rm -rf "$REPLICA_DIR"
  mkdir -p "$REPLICA_DIR"
  [ "$(id -u)" -ne 0 ] || chown postgres:postgres "$REPLICA_DIR"
  chmod 700 "$REPLICA_DIR"
  as_owner "$PG_BIN/pg_basebackup" -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U postgres -D "$REPLICA_DIR" -R -X stream -c fast
  # Debian keeps postgresql.conf and pg_hba.conf outside the data directory, so the copy has
  # neither. The standby's limits must be at least the primary's.
  local max_conn workers locks
  max_conn=$(psql "$ADMIN_URL" -tAc 'SHOW max_connections')
  workers=$(psql "$ADMIN_URL" -tAc 'SHOW max_worker_processes')
  locks=$(psql "$ADMIN_URL" -tAc 'SHOW max_locks_per_transaction')
  as_owner tee "$REPLICA_DIR/postgresql.conf" >/dev/null <<CONF
# ams test replica (scripts/test-replica.sh); postgresql.auto.conf holds primary_conninfo.
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '/tmp'
max_connections = $max_conn
max_worker_processes = $workers
max_locks_per_transaction = $locks
shared_buffers = 64MB
hot_standby = on
# The primary keeps rows the replica's queries still read: fewer queries cancelled by replay.
hot_standby_feedback = on
wal_receiver_status_interval = 1s
CONF
  as_owner tee "$REPLICA_DIR/pg_hba.conf" >/dev/null <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA
  as_owner touch "$REPLICA_DIR/pg_ident.conf"
  # A delay left by a test run that was interrupted does not outlive a new replica.
  as_owner sed -i '/recovery_min_apply_delay/d' "$REPLICA_DIR/postgresql.auto.conf"
}

# The replica's postmaster and its children, by process id.
replica_pids() {
  local pid; pid=$(head -n 1 "$REPLICA_DIR/postmaster.pid")
  echo "$pid" $(pgrep -P "$pid" || true)
}

ensure() {
  # A replica a test run left paused (SIGSTOP) runs again.
  if [ -f "$REPLICA_DIR/postmaster.pid" ] && [ "$(cat "/proc/$(head -n 1 "$REPLICA_DIR/postmaster.pid")/comm" 2>/dev/null)" = postgres ]; then
    kill -CONT $(replica_pids) 2>/dev/null || true
  fi
  if is_standby && keeps_up; then return 0; fi
  if [ ! -f "$REPLICA_DIR/standby.signal" ] || [ ! -f "$REPLICA_DIR/postgresql.conf" ]; then make_replica; fi
  if ! { start && keeps_up; }; then
    # A replica the primary can no longer feed (its WAL recycled): made again.
    stop || true
    make_replica
    start
  fi
  log "streaming replica on 127.0.0.1:$REPLICA_PORT"
}

case "${1:-ensure}" in
  ensure) ensure ;;
  start) start ;;
  stop) stop ;;
  status) is_standby ;;
  pause) kill -STOP $(replica_pids) ;;
  resume) kill -CONT $(replica_pids) ;;
  *) echo "usage: $0 ensure|start|stop|pause|resume|status" >&2; exit 2 ;;
esac
