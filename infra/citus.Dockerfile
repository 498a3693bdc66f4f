# A Citus node for docker-compose.yml's citus profile: the official Citus image (PostgreSQL 17 on
# Debian, citus in shared_preload_libraries, the extension created in POSTGRES_DB at first start)
# with pgvector from the PostgreSQL apt repository the base image already carries.
ARG CITUS_IMAGE=citusdata/citus:13.0.3
FROM ${CITUS_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends "postgresql-${PG_MAJOR}-pgvector" \
 && rm -rf /var/lib/apt/lists/*
