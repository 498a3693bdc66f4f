#!/usr/bin/env bash
# Makes PostgreSQL (with pgvector) and Redis available on a Debian machine and starts them.
# Idempotent: skips whatever is already installed or running. Needs root (or sudo).
set -euo pipefail

log() { printf '[setup-services] %s\n' "$*"; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

apt_updated=0
apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  # English descriptions kept: the bench's corpus is read from those lists (bench/corpus.ts).
  if [ $apt_updated -eq 0 ]; then $SUDO apt-get -o Acquire::Languages=en update -qq; apt_updated=1; fi
  log "installing ${missing[*]}"
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
}

# shellcheck source=infra/debian-archive.sh
source "$(dirname "$0")/debian-archive.sh"

# --- PostgreSQL -------------------------------------------------------------------------------
apt_install postgresql
PG_MAJOR=$(ls /etc/postgresql | sort -n | tail -n 1)
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
if ! pg_lsclusters -h 2>/dev/null | grep -q online; then
  log "starting PostgreSQL $PG_MAJOR"
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main start
fi

# --- pgvector, built from Debian's source package (not packaged for bookworm) ------------------
if [ ! -f "$($PG_CONFIG --sharedir)/extension/vector.control" ]; then
  apt_install "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev
  work=$(mktemp -d)
  chmod 755 "$work"; mkdir -p "$work/lists/partial"
  archive=$(debian_archive_uri)
  log "pgvector source from $archive (trixie)"
  cat > "$work/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive trixie main
SRC
  apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o "Dir::State::Lists=$work/lists")
  log "fetching pgvector source"
  $SUDO apt-get "${apt_opts[@]}" update -qq
  (cd "$work" && $SUDO apt-get "${apt_opts[@]}" source --download-only pgvector >/dev/null)
  (cd "$work" && dpkg-source -x --no-check pgvector_*.dsc src >/dev/null)
  log "building pgvector"
  make -s -C "$work/src" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
  $SUDO make -s -C "$work/src" PG_CONFIG="$PG_CONFIG" install >/dev/null
  rm -rf "$work"
fi
log "pgvector: $(ls "$($PG_CONFIG --sharedir)/extension" | grep -E '^vector--[0-9.]+\.sql$' | sort -V | tail -n 1)"

# --- Test tooling: the embeddings tests generate a tiny BERT-shaped ONNX model with Debian's python3 ---
apt_install python3-onnx python3-numpy wamerican

# --- Redis --------------------------------------------------------------------------------------
apt_install redis-server
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "starting Redis"
  $SUDO mkdir -p /var/lib/redis /var/log/redis
  $SUDO redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi

# Wait until both answer, so the test command never races the start-up.
ready=0
for _ in $(seq 1 30); do
  if pg_isready -q -h 127.0.0.1 && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then ready=1; break; fi
  sleep 1
done
[ $ready = 1 ] || { log "PostgreSQL or Redis did not become ready"; exit 1; }
log "PostgreSQL and Redis are ready"

# --- The test cluster's streaming replica (port 5433), for the read-replica tests ---------------
bash "$(dirname "$0")/../scripts/test-replica.sh" ensure
