# docker-compose.yml's PostgreSQL: an init script (/docker-entrypoint-initdb.d, sourced at the first
# start) letting the replica profile's streaming replica connect. Replication connections are matched
# only by a `replication` line (`all` does not cover them); the password, as for other connections.
echo "host replication all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
