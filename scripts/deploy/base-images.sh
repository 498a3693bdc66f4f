#!/usr/bin/env bash
# Local stand-ins for the images docker-compose.yml and infra/Dockerfile name, for a machine that can
# pull none: a Debian bookworm root file system from debootstrap, then
#   node:20-bookworm-slim   this machine's node binary and npm, a `node` user (uid 1000), as upstream;
#   pgvector/pgvector:pg16  Debian's PostgreSQL (the release the machine runs, security archive
#                           included) with the pgvector this machine built
#                           (infra/setup-services.sh), behind an entrypoint that honours POSTGRES_*;
#   redis:7-alpine          Debian's redis-server, protected mode off as upstream's entrypoint does;
#   citusdata/citus:13.0.3  (citus_image, for the citus profile) the PostgreSQL image above with
#                           this machine's Citus copied in (or Citus compiled from the vendored
#                           source when it has none), preloaded, created in POSTGRES_DB.
# Each is built once and kept in podman's storage (the PostgreSQL and Citus ones again when their
# recipe changes); the root file system is kept as a tarball in
# $AMS_DEPLOY_CACHE. Sourced by scripts/test-deploy.sh (uses its log, podman and debian_archive_uri).

build_base() {
  podman build --network host -t "$1" "$2" >"$2.log" 2>&1 || { tail -n 20 "$2.log" >&2; return 1; }
}

# The shell command that writes an image's apt sources: the machine's Debian archive, and its
# security archive when it has one (infra/debian-archive.sh).
apt_sources() {
  local security; security=$(debian_security_uri)
  printf "printf '%%s\\\\n' 'deb %s bookworm main'%s > /etc/apt/sources.list" "$(debian_archive_uri)" "${security:+ 'deb $security bookworm-security main'}"
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

  # PostgreSQL from the main archive and, when the machine's apt has it, the security archive: the
  # same patched release the machine runs, which its pgvector (and Citus, below) were built against.
  local pg_major pg_config recipe
  pg_major=$(ls /etc/postgresql | sort -n | tail -n 1)
  pg_config=/usr/lib/postgresql/$pg_major/bin/pg_config
  mkdir -p "$ctx/pg/ext"
  cp "$($pg_config --pkglibdir)/vector.so" "$ctx/pg/"
  cp "$($pg_config --sharedir)"/extension/vector* "$ctx/pg/ext/"
  cp "$AMS_DEPLOY_DIR/postgres-entrypoint.sh" "$ctx/pg/entrypoint.sh"
  cat >"$ctx/pg/Dockerfile" <<EOF
FROM localhost/ams-deploy/bookworm:minbase
RUN $(apt_sources) && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-$pg_major >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/lib/postgresql/$pg_major /etc/postgresql/$pg_major
COPY vector.so /usr/lib/postgresql/$pg_major/lib/
COPY ext/ /usr/share/postgresql/$pg_major/extension/
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN mkdir -p /docker-entrypoint-initdb.d
ENV PATH=/usr/lib/postgresql/$pg_major/bin:\$PATH PGDATA=/var/lib/postgresql/data PG_MAJOR=$pg_major
STOPSIGNAL SIGINT
ENTRYPOINT ["bash", "/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
EOF
  # Made again when its recipe changes: the Dockerfile, the entrypoint, this machine's pgvector.
  recipe=$(cd "$ctx/pg" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  if [ "$(podman image inspect -f '{{index .Labels "ams.recipe"}}' docker.io/pgvector/pgvector:pg16 2>/dev/null)" != "$recipe" ]; then
    echo "LABEL ams.recipe=$recipe" >>"$ctx/pg/Dockerfile"
    log "making pgvector/pgvector:pg16 from Debian's PostgreSQL $pg_major and this machine's pgvector"
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
# image): the PostgreSQL image above with Citus, preloaded by every cluster initdb makes, and
# created in POSTGRES_DB at the first start. pgvector is there already. Citus comes from this
# machine when it has it for the image's PostgreSQL release (CI's Citus suite, infra/citus-cluster.sh,
# builds and installs it before the deploy test): its installed files are copied in, with the
# Debian packages of the libraries they link (seconds). Otherwise (or AMS_DEPLOY_CITUS_FROM=source)
# it is compiled from CITUS_SOURCE, the vendored release, as infra/citus-cluster.sh builds it, in a
# stage of its own with Debian's development packages (1 to 15 minutes on 2 cores, as busy as the
# machine is). Made again when its recipe (with the host's Citus files) or the PostgreSQL image
# changes.
citus_image() {
  local tag=docker.io/citusdata/citus:13.0.3 ctx pg_major base host_pg_config from
  base=$(podman image inspect -f '{{.Id}}' docker.io/pgvector/pgvector:pg16)
  local source=${CITUS_SOURCE:-/work/shared/vendor/citus-13.2.2.tar.gz}
  local patch=${CITUS_PATCH:-$(dirname "$source")/citus-13.2.2-pg15-have_createdb_privilege.patch}
  pg_major=$(podman image inspect -f '{{range .Config.Env}}{{println .}}{{end}}' docker.io/pgvector/pgvector:pg16 | sed -n 's/^PG_MAJOR=//p')
  host_pg_config=/usr/lib/postgresql/$pg_major/bin/pg_config
  ctx=$(mktemp -d)
  # The machine's Citus is built against its PostgreSQL's headers: a module of a later minor
  # release may call what an earlier server lacks, so the image's server must be the same release.
  local host_pg image_pg
  if [ -x "$host_pg_config" ] && [ -f "$("$host_pg_config" --pkglibdir)/citus.so" ]; then
    host_pg=$("$(dirname "$host_pg_config")/postgres" --version)
    image_pg=$(podman run --rm --network none --entrypoint postgres docker.io/pgvector/pgvector:pg16 --version)
    [ "$host_pg" = "$image_pg" ] || log "this machine's Citus is built for '$host_pg', the image runs '$image_pg': compiling Citus instead"
  fi
  if [ "${AMS_DEPLOY_CITUS_FROM:-}" != source ] && [ -n "${host_pg:-}" ] && [ "$host_pg" = "$image_pg" ]; then
    from=host
    citus_from_host "$host_pg_config" "$ctx" || { rm -rf "$ctx"; return 1; }
    cat >"$ctx/Dockerfile" <<EOF
FROM docker.io/pgvector/pgvector:pg16
RUN $(apt_sources) && apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(cat "$ctx/packages") >/dev/null \\
 && rm -rf /var/lib/apt/lists/*
COPY lib/ /usr/lib/postgresql/$pg_major/lib/
COPY ext/ /usr/share/postgresql/$pg_major/extension/
RUN if ldd /usr/lib/postgresql/$pg_major/lib/citus*.so | grep 'not found'; then echo 'Citus links libraries the image lacks' >&2; exit 1; fi
EOF
  else
    from=source
    [ -f "$source" ] || { log "no Citus on this machine for PostgreSQL $pg_major, and no Citus source at $source (set CITUS_SOURCE to a release tarball)"; rm -rf "$ctx"; return 1; }
    cp "$source" "$ctx/citus.tar.gz"
    if [ -f "$patch" ]; then cp "$patch" "$ctx/citus.patch"; else : >"$ctx/citus.patch"; fi
    cat >"$ctx/Dockerfile" <<EOF
FROM docker.io/pgvector/pgvector:pg16 AS build
RUN $(apt_sources) && apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-server-dev-$pg_major \\
      build-essential patch libzstd-dev liblz4-dev libkrb5-dev >/dev/null
COPY citus.tar.gz citus.patch /src/
RUN mkdir /src/citus && tar -xzf /src/citus.tar.gz -C /src/citus --strip-components=1 && cd /src/citus \\
 && { [ ! -s /src/citus.patch ] || patch -p1 -N -s < /src/citus.patch; } \\
 && ./configure --without-libcurl >/dev/null && make -s -j"\$(nproc)" >/dev/null && make -s install DESTDIR=/out >/dev/null

FROM docker.io/pgvector/pgvector:pg16
COPY --from=build /out/ /
EOF
  fi
  echo 'CREATE EXTENSION IF NOT EXISTS citus;' >"$ctx/001-create-citus-extension.sql"
  cat >>"$ctx/Dockerfile" <<EOF
RUN echo "shared_preload_libraries = 'citus'" >> /usr/share/postgresql/$pg_major/postgresql.conf.sample
COPY 001-create-citus-extension.sql /docker-entrypoint-initdb.d/
# The postgres user's home, as upstream: libpq (a node connecting to the others) looks for client
# certificates under it, and /root is not readable by postgres.
ENV HOME=/var/lib/postgresql
EOF
  # The recipe: the Dockerfile and what it copies (the host's Citus files, or the source's patch).
  local recipe
  recipe=$({
    cat "$ctx/Dockerfile"
    if [ $from = host ]; then (cd "$ctx" && find lib ext -type f -print0 | sort -z | xargs -0 sha256sum); else cat "$ctx/citus.patch"; fi
  } | sha256sum | cut -c1-16)
  if [ "$(podman image inspect -f '{{index .Labels "ams.recipe"}}' "$tag" 2>/dev/null)" = "$base-$recipe" ]; then rm -rf "$ctx"; return 0; fi
  echo "LABEL ams.recipe=$base-$recipe" >>"$ctx/Dockerfile"
  if [ $from = host ]; then
    log "making citusdata/citus:13.0.3 from this machine's Citus $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ctx/ext/citus.control") for PostgreSQL $pg_major (libraries: $(cat "$ctx/packages"))"
  else
    log "making citusdata/citus:13.0.3 by compiling $(basename "$source") (1 to 15 minutes on 2 cores, as busy as the machine is)"
  fi
  build_base "$tag" "$ctx" || { rm -rf "$ctx"; return 1; }
  rm -rf "$ctx"
}

# This machine's installed Citus into $2/lib (the modules, the logical decoders, their JIT bitcode)
# and $2/ext (the extensions' control and SQL files); into $2/packages the Debian packages holding
# the libraries those modules link (apt installs those the image lacks).
citus_from_host() {
  local pg_config=$1 ctx=$2 libdir sharedir lib p pkgs=()
  libdir=$("$pg_config" --pkglibdir) sharedir=$("$pg_config" --sharedir)
  mkdir -p "$ctx/lib" "$ctx/ext"
  cp -a "$libdir"/citus*.so "$ctx/lib/"
  if [ -d "$libdir/citus_decoders" ]; then cp -a "$libdir/citus_decoders" "$ctx/lib/"; fi
  if compgen -G "$libdir/bitcode/citus*" >/dev/null; then mkdir -p "$ctx/lib/bitcode" && cp -a "$libdir"/bitcode/citus* "$ctx/lib/bitcode/"; fi
  cp -a "$sharedir"/extension/citus* "$ctx/ext/"
  if compgen -G "$sharedir/extension/columnar*" >/dev/null; then cp -a "$sharedir"/extension/columnar* "$ctx/ext/"; fi
  while read -r lib; do
    p=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null) ||
      { log "Citus links $lib, which no Debian package on this machine holds"; return 1; }
    pkgs+=("${p%%:*}")
  done < <(find "$ctx/lib" -name '*.so' -exec ldd {} + | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u)
  printf '%s\n' "${pkgs[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//' >"$ctx/packages"
}
