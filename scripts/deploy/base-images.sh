#!/usr/bin/env bash
# Local stand-ins for the images docker-compose.yml and infra/Dockerfile name, for a machine that can
# pull none: a Debian bookworm root file system from debootstrap, then
#   node:20-bookworm-slim   this machine's node binary and npm, a `node` user (uid 1000), as upstream;
#   pgvector/pgvector:pg16  Debian's PostgreSQL with the pgvector this machine built
#                           (infra/setup-services.sh), behind an entrypoint that honours POSTGRES_*;
#   redis:7-alpine          Debian's redis-server, protected mode off as upstream's entrypoint does;
#   citusdata/citus:13.0.3  (citus_image, for the citus profile) the PostgreSQL image above with
#                           Citus built from the vendored source, preloaded, created in POSTGRES_DB.
# Each is built once and kept in podman's storage (the PostgreSQL one again when its entrypoint changes); the root file system is kept as a tarball in
# $AMS_DEPLOY_CACHE. Sourced by scripts/test-deploy.sh (uses its log, podman and debian_archive_uri).

build_base() {
  podman build --network host -t "$1" "$2" >"$2.log" 2>&1 || { tail -n 20 "$2.log" >&2; return 1; }
}

base_images() {
  local cache="$AMS_DEPLOY_CACHE" archive rootfs_tar="$AMS_DEPLOY_CACHE/bookworm-minbase.tar"
  archive=$(debian_archive_uri)
  if ! podman image exists localhost/ams-deploy/bookworm:minbase; then
    if [ ! -s "$rootfs_tar" ]; then
      log "debootstrap bookworm (minbase) from $archive"
      local tmp; tmp=$(mktemp -d "$cache/rootfs.XXXXXX")
      debootstrap --variant=minbase bookworm "$tmp/root" "$archive" >"$tmp/debootstrap.log" 2>&1 ||
        { tail -n 20 "$tmp/debootstrap.log" >&2; rm -rf "$tmp"; return 1; }
      rm -rf "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/lib/apt/lists/"*
      tar -C "$tmp/root" -cf "$rootfs_tar.tmp" . && mv "$rootfs_tar.tmp" "$rootfs_tar"
      rm -rf "$tmp"
    fi
    podman import -q --change 'CMD ["bash"]' "$rootfs_tar" localhost/ams-deploy/bookworm:minbase >/dev/null
  fi

  local ctx; ctx=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "rm -rf '$ctx'" RETURN

  if ! podman image exists docker.io/library/node:20-bookworm-slim; then
    log "making node:20-bookworm-slim from this machine's node $(node --version)"
    mkdir -p "$ctx/node/npm"
    cp "$(readlink -f "$(command -v node)")" "$ctx/node/node"
    cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/../." "$ctx/node/npm/"
    # The machine's trust store: the npm registry may be reached through a TLS-inspecting proxy.
    cp /etc/ssl/certs/ca-certificates.crt "$ctx/node/ca-certificates.crt"
    cat >"$ctx/node/Dockerfile" <<EOF
FROM localhost/ams-deploy/bookworm:minbase
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=$(node --version | tr -d v) ${NODE_EXTRA_CA_CERTS:+NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt}
CMD ["node"]
EOF
    build_base docker.io/library/node:20-bookworm-slim "$ctx/node"
  fi

  local entrypoint_sum; entrypoint_sum=$(sha256sum "$AMS_DEPLOY_DIR/postgres-entrypoint.sh" | cut -c1-16)
  if [ "$(podman image inspect -f '{{index .Labels "ams.entrypoint"}}' docker.io/pgvector/pgvector:pg16 2>/dev/null)" != "$entrypoint_sum" ]; then
    local pg_major pg_config
    pg_major=$(ls /etc/postgresql | sort -n | tail -n 1)
    pg_config=/usr/lib/postgresql/$pg_major/bin/pg_config
    log "making pgvector/pgvector:pg16 from Debian's PostgreSQL $pg_major and this machine's pgvector"
    mkdir -p "$ctx/pg/ext"
    cp "$($pg_config --pkglibdir)/vector.so" "$ctx/pg/"
    cp "$($pg_config --sharedir)"/extension/vector* "$ctx/pg/ext/"
    cp "$AMS_DEPLOY_DIR/postgres-entrypoint.sh" "$ctx/pg/entrypoint.sh"
    cat >"$ctx/pg/Dockerfile" <<EOF
FROM localhost/ams-deploy/bookworm:minbase
RUN echo 'deb $archive bookworm main' > /etc/apt/sources.list && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-$pg_major >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/lib/postgresql/$pg_major /etc/postgresql/$pg_major
COPY vector.so /usr/lib/postgresql/$pg_major/lib/
COPY ext/ /usr/share/postgresql/$pg_major/extension/
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN mkdir -p /docker-entrypoint-initdb.d
LABEL ams.entrypoint=$entrypoint_sum
ENV PATH=/usr/lib/postgresql/$pg_major/bin:\$PATH PGDATA=/var/lib/postgresql/data PG_MAJOR=$pg_major
STOPSIGNAL SIGINT
ENTRYPOINT ["bash", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
EOF
    build_base docker.io/pgvector/pgvector:pg16 "$ctx/pg"
  fi

  if ! podman image exists docker.io/library/redis:7-alpine; then
    log "making redis:7-alpine from Debian's redis-server"
    mkdir -p "$ctx/redis"
    cat >"$ctx/redis/Dockerfile" <<EOF
FROM localhost/ams-deploy/bookworm:minbase
RUN echo 'deb $archive bookworm main' > /etc/apt/sources.list && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
 && rm -rf /var/lib/apt/lists/*
RUN printf '#!/bin/sh\n[ "\$1" = redis-server ] && { shift; exec redis-server --protected-mode no "\$@"; }\nexec "\$@"\n' > /usr/local/bin/docker-entrypoint.sh \
 && chmod +x /usr/local/bin/docker-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
EOF
    build_base docker.io/library/redis:7-alpine "$ctx/redis"
  fi
}

# The citus profile's node image (docker-compose.yml builds infra/citus.Dockerfile on the official
# image): Citus from CITUS_SOURCE (the vendored release, as infra/citus-cluster.sh builds it), built
# in a stage of its own with Debian's development packages, installed into the PostgreSQL image
# above, preloaded by every cluster initdb makes, and created in POSTGRES_DB at the first start.
# pgvector is there already. Built once (a few minutes; again when the PostgreSQL image changes).
citus_image() {
  local tag=docker.io/citusdata/citus:13.0.3 archive ctx pg_major base
  base=$(podman image inspect -f '{{.Id}}' docker.io/pgvector/pgvector:pg16)
  local source=${CITUS_SOURCE:-/work/shared/vendor/citus-13.2.2.tar.gz}
  local patch=${CITUS_PATCH:-$(dirname "$source")/citus-13.2.2-pg15-have_createdb_privilege.patch}
  [ -f "$source" ] || { log "no Citus source at $source (set CITUS_SOURCE to a release tarball)"; return 1; }
  archive=$(debian_archive_uri)
  pg_major=$(podman image inspect -f '{{range .Config.Env}}{{println .}}{{end}}' docker.io/pgvector/pgvector:pg16 | sed -n 's/^PG_MAJOR=//p')
  ctx=$(mktemp -d)
  cp "$source" "$ctx/citus.tar.gz"
  if [ -f "$patch" ]; then cp "$patch" "$ctx/citus.patch"; else : >"$ctx/citus.patch"; fi
  echo 'CREATE EXTENSION IF NOT EXISTS citus;' >"$ctx/001-create-citus-extension.sql"
  cat >"$ctx/Dockerfile" <<EOF
FROM docker.io/pgvector/pgvector:pg16 AS build
RUN echo 'deb $archive bookworm main' > /etc/apt/sources.list && apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-server-dev-$pg_major \\
      build-essential patch libzstd-dev liblz4-dev libkrb5-dev >/dev/null
COPY citus.tar.gz citus.patch /src/
RUN mkdir /src/citus && tar -xzf /src/citus.tar.gz -C /src/citus --strip-components=1 && cd /src/citus \\
 && { [ ! -s /src/citus.patch ] || patch -p1 -N -s < /src/citus.patch; } \\
 && ./configure --without-libcurl >/dev/null && make -s -j"\$(nproc)" >/dev/null && make -s install DESTDIR=/out >/dev/null

FROM docker.io/pgvector/pgvector:pg16
COPY --from=build /out/ /
RUN echo "shared_preload_libraries = 'citus'" >> /usr/share/postgresql/$pg_major/postgresql.conf.sample
COPY 001-create-citus-extension.sql /docker-entrypoint-initdb.d/
# The postgres user's home, as upstream: libpq (a node connecting to the others) looks for client
# certificates under it, and /root is not readable by postgres.
ENV HOME=/var/lib/postgresql
EOF
  # Made again when the recipe or the PostgreSQL image changes (the compile stage then comes from
  # podman's layer cache unless the PostgreSQL image changed).
  local recipe; recipe=$(cat "$ctx/Dockerfile" "$ctx/citus.patch" | sha256sum | cut -c1-16)
  if [ "$(podman image inspect -f '{{index .Labels "ams.recipe"}}' "$tag" 2>/dev/null)" = "$base-$recipe" ]; then rm -rf "$ctx"; return 0; fi
  echo "LABEL ams.recipe=$base-$recipe" >>"$ctx/Dockerfile"
  log "making citusdata/citus:13.0.3 from $(basename "$source") (a few minutes the first time)"
  build_base "$tag" "$ctx" || { rm -rf "$ctx"; return 1; }
  rm -rf "$ctx"
}
