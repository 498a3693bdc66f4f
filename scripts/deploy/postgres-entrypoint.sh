#!/usr/bin/env bash
# The stand-in PostgreSQL image's entrypoint (scripts/deploy/base-images.sh): what the official
# image's does for docker-compose.yml — a first start initialises $PGDATA with POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB, runs /docker-entrypoint-initdb.d's *.sh (sourced) and *.sql
# files against a server listening on no address, and listens on every address; every start runs
# postgres as the postgres user, as PID 1.
set -euo pipefail
if [ "${1:-}" != postgres ]; then exec "$@"; fi

mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  pwfile=$(mktemp); chmod 644 "$pwfile"
  printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  as_postgres initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust >/dev/null
  rm -f "$pwfile"
  echo "host all all all ${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  db="${POSTGRES_DB:-$user}"
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  [ "$db" = postgres ] || as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""
  for f in /docker-entrypoint-initdb.d/*; do
    case $f in
      *.sh) # shellcheck disable=SC1090
        . "$f" ;;
      *.sql) as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d "$db" -qf "$f" ;;
    esac
  done
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$@"
