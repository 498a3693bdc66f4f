#!/usr/bin/env bash
# The image and the compose stack as users run them, with podman (docs/operations.md, "Deployment"):
# builds infra/Dockerfile, brings docker-compose.yml up with podman-compose (PostgreSQL + pgvector,
# Redis, two APIs, two embedding workers, the webhook dispatcher, a webhook receiver), checks the
# image as production wants it, smoke-tests the stack as a user would, then restarts and kills each
# service in turn under a steady mixed load and checks that nothing acknowledged was lost.
# Needs root on Debian; installs podman, runc, podman-compose and debootstrap when missing. Nothing
# is pulled: scripts/deploy/base-images.sh makes the base images locally (kept between runs, with
# the debootstrap tarball, in $AMS_DEPLOY_CACHE), and the model download at build time is pointed
# at a local file server holding a generated model of all-MiniLM-L6-v2's shape.
# Everything it starts (containers, network, volumes, the file server) is removed on exit.
# Profiles (--profiles a,b or AMS_DEPLOY_PROFILES; all four by default), each a stack of its own,
# one after the other, each timed:
#   default  the stack above: smoke test, SIGTERM and cold start, restarts under load, backup/restore;
#   upgrade  the stack on the image of the commit before the newest migration (built from
#            `git archive`, kept in podman's storage by commit), loaded, then each service replaced
#            by the new image under the load while the first new process applies the migration;
#   replica  the replica profile: a streaming replica container, the APIs reading from it;
#   citus    the citus profile: a coordinator and two workers (a stand-in image with this machine's
#            Citus copied in, or compiled from the vendored source with AMS_DEPLOY_CITUS_FROM=source
#            or when the machine has none).
# AMS_DEPLOY_SKIP_RESTARTS=1 stops the default profile after the smoke test; AMS_DEPLOY_IMAGE=<image> skips the build; AMS_DEPLOY_BREAK=<fault> shows that the
# script catches a fault a user would hit (healthcheck-port, missing-dependency).
# The whole script is one block, read before it runs: editing the file mid-run changes nothing.
{
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
t0=$(date +%s)
log() { printf '[test-deploy %4ss] %s\n' "$(($(date +%s) - t0))" "$*"; }
fail() { log "FAILED: $*"; exit 1; }

all_profiles=default,upgrade,replica,citus
profiles=${AMS_DEPLOY_PROFILES:-$all_profiles}
while [ $# -gt 0 ]; do
  case $1 in
    --profiles) profiles=${2:?--profiles needs a list}; shift 2 ;;
    --profiles=*) profiles=${1#*=}; shift ;;
    *) echo "usage: $0 [--profiles $all_profiles]" >&2; exit 2 ;;
  esac
done
for p in ${profiles//,/ }; do [[ ",$all_profiles," == *",$p,"* ]] || { echo "unknown profile: $p (known: $all_profiles)" >&2; exit 2; }; done
has_profile() { [[ ",$profiles," == *",$1,"* ]]; }

export AMS_DEPLOY_CACHE="${AMS_DEPLOY_CACHE:-/var/cache/ams-deploy}" AMS_DEPLOY_DIR="$root/scripts/deploy"
mkdir -p "$AMS_DEPLOY_CACHE"
# shellcheck source=infra/debian-archive.sh
source infra/debian-archive.sh
# shellcheck source=scripts/deploy/base-images.sh
source scripts/deploy/base-images.sh

missing=()
for pkg in podman runc podman-compose debootstrap openssl python3-onnx python3-numpy; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/ams-deploy.XXXXXX)
chmod 755 "$work"
project="amsdeploy$$"
project_b="${project}b"   # the fresh stack a backup is restored into
projects=("$project" "$project_b" "${project}u" "${project}r" "${project}c")
P=$project CF="$work/compose.yml"   # the stack compose() and ctr() act on
server_pid=""
load_pid=""
# crun refuses this machine's cgroup layout, and the default ulimits cannot be raised here.
cat >"$work/containers.conf" <<'EOF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF="$work/containers.conf"

compose() { podman-compose -p "$P" -f "$CF" "$@"; }
ctr() { echo "${P}_$1_1"; }
remove_project() {
  local p=$1 c v n
  for c in $(podman ps -aq --filter "label=io.podman.compose.project=$p"); do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
  for v in $(podman volume ls -q --filter "label=io.podman.compose.project=$p"); do podman volume rm -f "$v" >/dev/null 2>&1; done
  for n in $(podman network ls -q --filter "label=io.podman.compose.project=$p"); do podman network rm -f "$n" >/dev/null 2>&1; done
}

cleanup() {
  local status=$?
  set +e
  [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
  # The background build of the upgrade's starting image, and the podman build it runs.
  if [ -n "${old_build_pid:-}" ]; then kill $(pgrep -P "$old_build_pid") "$old_build_pid" 2>/dev/null; wait "$old_build_pid" 2>/dev/null; fi
  if [ $status -ne 0 ] && [ -f "$work/compose-up.log" ]; then
    grep -iE "error|exit code: [1-9]" "$work/compose-up.log" 2>/dev/null | tail -n 5
    log "logs of the stack's services (last lines each):"
    for c in $(for p in "${projects[@]}"; do podman ps -a --filter "label=io.podman.compose.project=$p" --format '{{.Names}}'; done); do
      echo "--- $c"; podman logs --tail 15 "$c" 2>&1 | cut -c1-400
    done
  fi
  for p in "${projects[@]}"; do remove_project "$p"; done
  [ -n "${AMS_DEPLOY_BREAK:-}" ] && podman rmi -f localhost/ams-deploy/app:broken >/dev/null 2>&1
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
  [ ${#phases[@]} -gt 0 ] && log "phases: $(IFS=,; echo "${phases[*]}" | sed 's/,/, /g')"
  log "test-deploy: $(($(date +%s) - t0)) s wall (exit $status)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Each phase's wall time, printed at the end (and on failure, the phases done so far).
phases=()
phase_started=$(date +%s)
phase_done() { phases+=("$1 $(($(date +%s) - phase_started)) s"); phase_started=$(date +%s); }

# --- Base images and the model host -----------------------------------------------------------
base_images
log "base images ready"
phase_done "base images"

model="Xenova/all-MiniLM-L6-v2"
model_dir="$AMS_DEPLOY_CACHE/model-host/$model/resolve/main"
if [ ! -s "$model_dir/onnx/model_quantized.onnx" ]; then
  log "generating a model of $model's shape"
  rm -rf "$model_dir"; mkdir -p "$(dirname "$model_dir")"
  /usr/bin/python3 packages/testing/scripts/make_bert_onnx.py "$model_dir.tmp" >/dev/null
  mv "$model_dir.tmp" "$model_dir"
fi
model_port=$(free_port)
(cd "$AMS_DEPLOY_CACHE/model-host" && exec python3 -m http.server "$model_port" --bind 127.0.0.1 >"$work/model-host.log" 2>&1) &
server_pid=$!

# --- The image ----------------------------------------------------------------------------------
# podman build of infra/Dockerfile in context $1, tagged $2, its output in $3. Host network for the
# build only: the model host listens on loopback. Docker's image format: the OCI format has no
# HEALTHCHECK, and podman's default drops it. With podman's layer cache: the Dockerfile installs
# the dependencies in a layer of their own (the manifests and the lockfile copied first), which
# the next build reuses while they are unchanged, here and for the upgrade profile's earlier
# commit when its lockfile is the same. npm ci reads this machine's npm cache, mounted as an
# overlay (what the build writes there, or cleans, stays in the build), so it fetches nothing the
# machine's own npm ci already fetched.
npm_cache=$(npm config get cache 2>/dev/null || true)
app_build() {
  local context=$1 tag=$2 out=$3 cache_mount=()
  [ -d "$npm_cache/_cacache" ] && cache_mount=(--volume "$npm_cache:/root/.npm:O")
  podman build --format docker --network host "${cache_mount[@]}" --build-arg "EMBEDDING_MODEL_HOST=http://127.0.0.1:$model_port" \
    -f "$context/infra/Dockerfile" -t "$tag" "$context" >"$out" 2>&1
}
# The intermediate images the builds of this run made or reused (from their output), recorded in
# $AMS_DEPLOY_CACHE/app-layers; those of the run before that this run did not reuse are removed
# (the newest first, so each has no child left), so the layer cache does not grow run by run.
prune_build_layers() {
  local record="$AMS_DEPLOY_CACHE/app-layers" ids id
  ids=$({ cat "$@" 2>/dev/null || true; } | sed -n 's/^--> \(Using cache \)\{0,1\}\([0-9a-f]\{11,64\}\)$/\2/p' |
    while read -r id; do podman image inspect -f '{{.Id}}' "$id" 2>/dev/null; done | sort -u)
  if [ -f "$record" ]; then
    for id in $(tac "$record"); do
      grep -qx "$id" <<<"$ids" && continue
      if [ "$(podman image inspect -f '{{len .RepoTags}}' "$id" 2>/dev/null)" = 0 ]; then podman rmi "$id" >/dev/null 2>&1 || true; fi
    done
  fi
  podman images -a -q --no-trunc --sort created | sed 's/^sha256://' | grep -xF -f <(echo "$ids") >"$record.tmp" || true
  mv "$record.tmp" "$record"
}
# The commit before the newest migration landed (its first parent: main's state then), when it is
# exactly one migration behind this tree.
upgrade_from() {
  local landed old
  landed=$(git log --first-parent -1 --format=%H -- packages/db/src/migrations/index.ts)
  old=$(git rev-parse "$landed^1")
  count() { git show "$1:packages/db/src/migrations/index.ts" | grep -cE '^  [A-Za-z]+,$'; }
  [ $(($(grep -cE '^  [A-Za-z]+,$' packages/db/src/migrations/index.ts) - $(count "$old"))) = 1 ] ||
    fail "no commit one migration behind found ($old)" >&2   # stderr: the caller takes stdout
  echo "$old"
}
# The upgrade profile's starting image (the commit from upgrade_from, built from `git archive`,
# kept in podman's storage by commit), built in the background beside this run's image: each build
# is mostly one single-threaded compiler, so on 2 cores the two take little longer than one.
# profile_upgrade waits for it.
old_build_pid=""
old_build() {
  local tree="$work/upgrade-from" started=$(date +%s)
  mkdir -p "$tree" && git archive "$1" | tar -x -C "$tree"
  app_build "$tree" "$2" "$work/build-old.log" || return 1
  rm -rf "$tree"
  echo $(($(date +%s) - started)) >"$work/build-old.time"
}
if has_profile upgrade; then
  upgrade_old=$(upgrade_from)
  old_image="localhost/ams-deploy/app:$(git rev-parse --short=12 "$upgrade_old")"
  if ! podman image exists "$old_image"; then
    log "building the upgrade profile's starting image in the background: $(git log -1 --format='%h (%s)' "$upgrade_old" | cut -c1-80)"
    old_build "$upgrade_old" "$old_image" &
    old_build_pid=$!
  fi
fi
image="localhost/ams-deploy/app:test"
if [ -n "${AMS_DEPLOY_IMAGE:-}" ]; then
  # While working on this script: an image built by an earlier run.
  image=$AMS_DEPLOY_IMAGE
  log "using the image $image"
else
  log "building infra/Dockerfile (model from the local file server)"
  build_started=$(date +%s)
  previous=$(podman image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
  app_build "$root" "$image" "$work/build.log" || { tail -n 30 "$work/build.log"; fail "podman build of infra/Dockerfile"; }
  log "image built in $(($(date +%s) - build_started)) s ($(grep -c '^--> Using cache' "$work/build.log") steps from the layer cache)"
  # The previous run's image, untagged by this build: nothing uses it any more.
  if [ -n "$previous" ] && [ "$previous" != "$(podman image inspect -f '{{.Id}}' "$image")" ]; then
    podman rmi "$previous" >/dev/null 2>&1 || true
  fi
fi
phase_done "image build"
if [ -n "${AMS_DEPLOY_BREAK:-}" ]; then
  bash scripts/deploy/break.sh "$AMS_DEPLOY_BREAK" "$image" localhost/ams-deploy/app:broken
  image=localhost/ams-deploy/app:broken
  log "broken on purpose: $AMS_DEPLOY_BREAK"
fi
size=$(podman image inspect -f '{{.Size}}' "$image")
log "image size $((size / 1000000)) MB"

log "checking the image's runtime stage"
[ "$(podman image inspect -f '{{.Config.User}}' "$image")" = node ] || fail "the image's user is not node"
# No TypeScript sources, no dev dependencies (those no workspace needs in production), the model.
node scripts/deploy/dev-only-packages.mjs >"$work/dev-only.txt"
offenders=$(podman run --rm --no-healthcheck --network none --entrypoint bash -v "$work/dev-only.txt:/tmp/dev-only.txt:ro" "$image" -c '
  find /app -name node_modules -prune -o \( -name "*.ts" -o -name "*.tsx" -o -name tsconfig.json \) -print | head -n 5
  while read -r dev; do [ -e "/app/$dev" ] && echo "$dev"; done </tmp/dev-only.txt
  true')
[ -z "$offenders" ] || fail "the runtime stage holds sources or dev dependencies: $(echo "$offenders" | head -n 5 | tr '\n' ' ')"
baked=$(podman run --rm --no-healthcheck --network none --entrypoint bash "$image" -c "stat -c %s /app/models/$model/onnx/model_quantized.onnx" 2>/dev/null || true)
[ "$baked" = "$(stat -c %s "$model_dir/onnx/model_quantized.onnx")" ] || fail "the model is not baked into /app/models/$model"

# --- The stack ------------------------------------------------------------------------------------
receiver_dir="$work/receiver"
mkdir -p "$receiver_dir"
cp scripts/deploy/receiver.mjs "$receiver_dir/"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=receiver -addext 'subjectAltName=DNS:receiver' \
  -keyout "$receiver_dir/key.pem" -out "$receiver_dir/cert.pem" 2>/dev/null
chmod 644 "$receiver_dir"/*.pem
# The ports of the stack being set up (stack_ports), and its compose file (compose-file.mjs).
stack_ports() {
  api_port=$(free_port); api2_port=$(free_port); receiver_port=$(free_port)
  api="http://127.0.0.1:$api_port"; api2="http://127.0.0.1:$api2_port"; receiver="http://127.0.0.1:$receiver_port"
}
compose_file() { node scripts/deploy/compose-file.mjs "$1" "$2" "$api_port" "$api2_port" "$receiver_port" "$receiver_dir" "${@:3}"; }

# podman-compose starts services in dependency order but does not wait for a condition:
# the databases first, until their health checks pass, as Docker's service_healthy would.
healthy() { timeout 30 podman healthcheck run "$1" >/dev/null 2>&1; }
# Why a container is not serving: exited (with the error it logged), or up but failing its check.
diagnose() {
  local c=$1 state
  state=$(podman inspect -f '{{.State.Status}} (exit code {{.State.ExitCode}})' "$c" 2>/dev/null)
  echo "$c is $state"
  podman logs "$c" 2>&1 | grep -m 3 -E "Cannot find module|Error|error" | cut -c1-300 || true
  if [[ $state == running* ]] && podman exec "$c" node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" 2>/dev/null; then
    echo "$c answers /v1/health on its port, but its HEALTHCHECK ($(podman inspect -f '{{json .Config.Healthcheck.Test}}' "$c")) fails"
  fi
}
wait_healthy() {
  local name=$1 limit=$2 until=$((SECONDS + $2))
  while [ $SECONDS -lt $until ]; do healthy "$name" && return 0; sleep 0.25; done
  diagnose "$name"
  fail "$name did not pass its health check within $limit s"
}
http_ok() { curl -sf -o /dev/null --max-time 2 "$1"; }
wait_http() {
  local url=$1 limit=$2 c=$3 until=$((SECONDS + $2))
  while [ $SECONDS -lt $until ]; do
    http_ok "$url" && return 0
    [ "$(podman inspect -f '{{.State.Status}}' "$c" 2>/dev/null)" = exited ] && break
    sleep 0.1
  done
  diagnose "$c"
  fail "$url ($c) did not answer 200 (waited up to $limit s)"
}

# The stack's network, made before podman-compose (which then uses it; it ignores ipam): a
# public range, so deliveries to the receiver pass the webhook address policy as they would to a
# public receiver. The range lives on this bridge only while the test runs (one stack at a time).
stack_network() {
  podman network create --subnet "${AMS_DEPLOY_SUBNET:-192.0.3.0/24}" --label "io.podman.compose.project=$P" \
    "${P}_default" >/dev/null
}
# `compose up -d` of the named services, those with a health check healthy before it returns.
up_healthy() {
  compose up -d "$@" >>"$work/compose-up.log" 2>&1 || { tail -n 20 "$work/compose-up.log"; fail "podman-compose up $*"; }
  for s in "$@"; do
    if [ -n "$(podman inspect -f '{{if .Config.Healthcheck}}y{{end}}' "$(ctr "$s")")" ]; then wait_healthy "$(ctr "$s")" 90; fi
    case $s in postgres* | citus-coordinator | citus-worker-*) wait_pg_started "$(ctr "$s")" ;; esac
  done
}
# A first start's initialisation runs a server of its own, which pg_isready finds too: the real
# one is up once PID 1 logs that it accepts connections.
wait_pg_started() {
  local until=$((SECONDS + 60))
  until podman logs "$1" 2>&1 | grep -qE '\[1\] LOG: +database system is ready to accept'; do
    [ $SECONDS -lt $until ] || fail "$1: PostgreSQL did not start within 60 s"
    sleep 0.25
  done
}
# The services (after the databases): both APIs answering, every service healthy.
services_up() {
  log "podman-compose up: two APIs, two embedding workers, the webhook dispatcher"
  up_started=$(date +%s)
  compose up -d >>"$work/compose-up.log" 2>&1 || { tail -n 20 "$work/compose-up.log"; fail "podman-compose up"; }
  wait_http "$api/v1/health" 180 "$(ctr api)"
  wait_http "$api2/v1/health" 180 "$(ctr api-2)"
  for s in api api-2 embedding-worker embedding-worker-2 webhook-dispatcher; do wait_healthy "$(ctr "$s")" 60; done
  log "stack up and healthy in $(($(date +%s) - up_started)) s (first start: migrations, model load)"
}
# smoke.mjs against the stack; the account's key in user_key.
smoke() {
  local out="$work/smoke-$P.out"
  log "smoke test"
  node scripts/deploy/smoke.mjs "$api" "$api2" "$receiver" "$operator_key" >"$out" || { cat "$out"; fail "smoke test ($1)"; }
  head -n -1 "$out"
  user_key=$(tail -n 1 "$out")
}
read_operator_key() {
  operator_key=$(podman exec "$(ctr api)" cat /app/data/admin-api-key.txt 2>/dev/null || podman exec "$(ctr api-2)" cat /app/data/admin-api-key.txt 2>/dev/null || true)
  operator_key=$(grep -o 'mem_[A-Za-z0-9]*' <<<"$operator_key" | head -n 1)
  [ -n "$operator_key" ] || fail "no operator key in /app/data/admin-api-key.txt"
}
# A load account with a webhook to the receiver; load.mjs started on both APIs (load_pid).
start_load() {
  local account
  account=$(curl -sf --max-time 10 -H 'content-type: application/json' \
    -d "{\"email\":\"load-$P@example.com\",\"password\":\"deploy-load-password\"}" "$api/v1/auth/register")
  load_key=$(node -e 'const a = JSON.parse(process.argv[1]); console.log(a.api_key)' "$account")
  load_account_id=$(node -e 'const a = JSON.parse(process.argv[1]); console.log(a.account_id)' "$account")
  curl -sf --max-time 10 -o /dev/null -H "authorization: Bearer $load_key" -H 'content-type: application/json' \
    -d '{"url":"https://receiver:8443/load","secret":"deploy-load-secret"}' "$api/v1/webhooks" || fail "the load's webhook"
  rm -f "$work/stop-load"
  node scripts/deploy/load.mjs "$load_key" "$work/stop-load" "$work/load-$P.json" 3 "$api" "$api2" &
  load_pid=$!
}
# Stops the load and checks what it wrote (verify.mjs) against the database in container $1.
stop_load_and_verify() {
  local db=$1 label=$2
  touch "$work/stop-load"
  for ((i = 0; i < 600; i++)); do kill -0 "$load_pid" 2>/dev/null || break; sleep 0.1; done
  wait "$load_pid" || fail "the load generator failed"
  load_pid=""
  node scripts/deploy/verify.mjs "$load_account_id" "$receiver" "$work/load-$P.json" "$db" "$label" || fail "$label"
}

profile_default() {
P=$project CF="$work/compose.yml"
stack_ports
compose_file "$CF" "$image"
stack_network
log "podman-compose up: postgres, redis, receiver"
up_healthy postgres redis receiver
services_up

# The image's process model, on the running containers.
for s in api embedding-worker webhook-dispatcher; do
  c=$(ctr "$s")
  [ "$(podman exec "$c" id -u)" = 1000 ] || fail "$s does not run as the node user"
  cmd=$(podman exec "$c" cat /proc/1/cmdline | tr '\0' ' ')
  [[ "$cmd" == node\ services/*/dist/*.js* ]] || fail "$s: PID 1 is '$cmd', not node"
done

# Metrics of each process: the workers' and the dispatcher's keyless listeners inside the network.
for pair in embedding-worker:9464:ams_embedding_queue_depth embedding-worker-2:9464:ams_embedding_queue_depth webhook-dispatcher:9465:ams_webhook_outbox_depth; do
  IFS=: read -r s port metric <<<"$pair"
  podman exec "$(ctr "$s")" node -e "fetch('http://127.0.0.1:$port/metrics').then((r) => r.text()).then((t) => process.exit(t.includes('$metric') ? 0 : 1), () => process.exit(1))" ||
    fail "$s: /metrics on $port without $metric"
done

read_operator_key
smoke default

log "the ams CLI against the stack"
cli() { AMS_URL="$api2" AMS_API_KEY="$user_key" node packages/cli/bin/ams.js "$@"; }
cli status >"$work/cli.out" 2>&1 || { cat "$work/cli.out"; fail "ams status"; }
cli search "lighthouse logbook" >"$work/cli.out" 2>&1 || { cat "$work/cli.out"; fail "ams search"; }
grep -q "lighthouse" "$work/cli.out" || { cat "$work/cli.out"; fail "ams search did not print the memory"; }
cli export -o "$work/export.ndjson" >/dev/null 2>&1 || fail "ams export"
[ "$(grep -c '"memory"' "$work/export.ndjson")" -ge 2 ] || fail "ams export holds fewer than 2 memories"

# --- Stop and start: SIGTERM drains and exits 0; cold start to healthy --------------------------
log "SIGTERM and cold start"
grace=20
# Stops service $1 (SIGTERM, then SIGKILL at the grace period) and fails unless it drained and exited
# 0 within the grace; the time it took is left in $took.
stop_drained() {
  local c code begin; c=$(ctr "$1"); begin=$(date +%s%N)
  podman stop -t "$grace" "$c" >/dev/null 2>>"$work/podman.log"
  took=$((($(date +%s%N) - begin) / 1000000))
  code=$(podman inspect -f '{{.State.ExitCode}}' "$c")
  [ "$code" = 0 ] || fail "$1 exited $code on SIGTERM (expected 0, in $took ms)"
  [ "$took" -lt $((grace * 1000)) ] || fail "$1 took $took ms to stop: killed at the grace period, not drained"
}
for s in api-2 embedding-worker-2 webhook-dispatcher; do
  stop_drained "$s"
  log "  $s: SIGTERM -> exit 0 in $took ms"
done
begin=$(date +%s%N)
podman start "$(ctr api-2)" >/dev/null 2>>"$work/podman.log"
wait_http "$api2/v1/health" 60 "$(ctr api-2)"
cold_ms=$((($(date +%s%N) - begin) / 1000000))
healthy "$(ctr api-2)" || fail "api-2's HEALTHCHECK fails while /v1/health answers"
log "  api-2: start to healthy in $cold_ms ms (goal 10000)"
podman start "$(ctr embedding-worker-2)" "$(ctr webhook-dispatcher)" >/dev/null 2>>"$work/podman.log"
wait_healthy "$(ctr embedding-worker-2)" 60
wait_healthy "$(ctr webhook-dispatcher)" 60

if [ "${AMS_DEPLOY_SKIP_RESTARTS:-}" = 1 ]; then
  log "default profile OK (restarts skipped). image $((size / 1000000)) MB, cold start ${cold_ms} ms"
  return 0
fi

# --- Rolling restarts under a steady mixed load ----------------------------------------------------
log "rolling restarts under load"
start_load
sleep 5
# A restart is a stop and a start, as `podman restart` does, with the stop checked: under load,
# with clients keeping their connections alive, SIGTERM still drains and exits 0.
restart() {
  local s=$1 c; c=$(ctr "$s")
  stop_drained "$s"
  podman start "$c" >/dev/null 2>>"$work/podman.log"
  case $s in api) wait_http "$api/v1/health" 60 "$c" ;; api-2) wait_http "$api2/v1/health" 60 "$c" ;; esac
  wait_healthy "$c" 60
  log "  restarted $s (SIGTERM -> exit 0 in $took ms)"
  sleep 3
}
for s in api api-2 embedding-worker embedding-worker-2 webhook-dispatcher redis; do restart "$s"; done
for s in api embedding-worker; do
  podman kill -s KILL "$(ctr "$s")" >/dev/null 2>>"$work/podman.log"
  sleep 1
  podman start "$(ctr "$s")" >/dev/null 2>>"$work/podman.log"
  [ "$s" = api ] && wait_http "$api/v1/health" 60 "$(ctr api)"
  wait_healthy "$(ctr "$s")" 60
  log "  killed (SIGKILL) and started $s"
  sleep 3
done
stop_load_and_verify "$(ctr postgres)" "restarts under load"

# --- Backup and restore, as docs/operations.md says --------------------------------------------
log "backup and restore: pg_dump restored into a fresh stack; ams export / ams import between the two"
podman exec "$(ctr postgres)" pg_dump -U ams -d ams -Fc >"$work/ams.dump" || fail "pg_dump of the stack's database"
api_b_port=$(free_port)
api_b="http://127.0.0.1:$api_b_port"
# The backup includes the key that seals webhook secrets (the appdata volume's file): without it
# the restored stack's API refuses to start.
secret_key=$(podman exec "$(ctr api)" cat /app/data/webhook-secret.key)
node scripts/deploy/compose-file.mjs "$work/compose-b.yml" "$image" "$api_b_port" "$(free_port)" "$(free_port)" "$receiver_dir" "$secret_key"
compose_b() { podman-compose -p "$project_b" -f "$work/compose-b.yml" "$@"; }
compose_b up -d postgres redis >>"$work/compose-up.log" 2>&1 || fail "podman-compose up of the second stack"
wait_healthy "${project_b}_postgres_1" 60
wait_pg_started "${project_b}_postgres_1"
wait_healthy "${project_b}_redis_1" 30
podman exec -i "${project_b}_postgres_1" pg_restore -U ams -d ams --no-owner <"$work/ams.dump" >"$work/restore.log" 2>&1 ||
  { tail -n 5 "$work/restore.log"; fail "pg_restore into the second stack"; }
compose_b up -d api >>"$work/compose-up.log" 2>&1 || fail "podman-compose up of the second stack's API"
wait_http "$api_b/v1/health" 90 "${project_b}_api_1"
tables="accounts api_keys agents memories entities webhooks webhook_deliveries"
counts() { podman exec "$1" psql -U ams -d ams -tAc "SELECT concat_ws(' ', $(for t in $tables; do printf "(SELECT count(*) FROM %s)," "$t"; done | sed 's/,$//'))"; }
[ "$(counts "$(ctr postgres)")" = "$(counts "${project_b}_postgres_1")" ] ||
  fail "the restored database's counts ($tables) differ: $(counts "$(ctr postgres)") vs $(counts "${project_b}_postgres_1")"
# The load's key works on the restored stack, and both export the same records.
AMS_URL="$api2" AMS_API_KEY="$load_key" node packages/cli/bin/ams.js export --include-vectors -o "$work/a.ndjson" >/dev/null 2>&1 || fail "ams export from the first stack"
AMS_URL="$api_b" AMS_API_KEY="$load_key" node packages/cli/bin/ams.js export --include-vectors -o "$work/b.ndjson" >/dev/null 2>&1 || fail "ams export from the restored stack"
records_a=$(node scripts/deploy/count-records.mjs "$work/a.ndjson")
[ "$records_a" = "$(node scripts/deploy/count-records.mjs "$work/b.ndjson")" ] ||
  fail "the restored stack exports $(node scripts/deploy/count-records.mjs "$work/b.ndjson"), the first $records_a"
# ams import of the first stack's export into a new account of the second, exported again.
import_key=$(curl -sf --max-time 10 -H 'content-type: application/json' \
  -d "{\"email\":\"import-$project@example.com\",\"password\":\"deploy-import-password\"}" "$api_b/v1/auth/register" |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).api_key))')
AMS_URL="$api_b" AMS_API_KEY="$import_key" timeout 300 node packages/cli/bin/ams.js import "$work/a.ndjson" >"$work/import.log" 2>&1 ||
  { tail -n 5 "$work/import.log"; fail "ams import into the second stack"; }
AMS_URL="$api_b" AMS_API_KEY="$import_key" node packages/cli/bin/ams.js export --include-vectors -o "$work/c.ndjson" >/dev/null 2>&1 || fail "ams export of the imported account"
[ "$records_a" = "$(node scripts/deploy/count-records.mjs "$work/c.ndjson")" ] ||
  fail "the imported account exports $(node scripts/deploy/count-records.mjs "$work/c.ndjson"), the first stack $records_a"
log "  restored database: same counts ($tables); exports of the first stack, the restored one and the imported account: $records_a"

log "default profile OK. image $((size / 1000000)) MB, cold start ${cold_ms} ms"
}

# --- Upgrade under load: the image of the commit before the newest migration, then the new one ---------
profile_upgrade() {
  local old old_image new_migration s c
  old=$(upgrade_from)
  # Added since: a migration edited since (060 took a lock first) is not one the old image lacks.
  new_migration=$(git diff --name-only --diff-filter=A "$old" -- packages/db/src/migrations | grep -vE '/(index|migration)\.ts$' | xargs -n1 basename | sed 's/\.ts$//')
  old_image="localhost/ams-deploy/app:$(git rev-parse --short=12 "$old")"
  # The load below cannot tell a lock held for the length of a large table's scan from a short one
  # (its tables are small): the static half of the migrations' lock check names such statements.
  log "the migrations' static lock check"
  node --import tsx -e "
    const load = async (p) => { const m = await import(p); return m.default ?? m; };
    const { MIGRATIONS } = await load('./packages/db/src/migrations/index.ts');
    const { checkedMigrationHazards } = await load('./packages/db/test/migration-lock-hazards.ts');
    const hazards = checkedMigrationHazards(MIGRATIONS);
    for (const h of hazards) console.log('  ' + h);
    process.exit(hazards.length ? 1 : 0);" || {
    fail "a migration takes a lock the services would queue behind (packages/db/test/unit/migration-lock-hazards.test.ts)"
  }
  if [ -n "$old_build_pid" ]; then
    log "waiting for the image of $(git log -1 --format='%h' "$old") (building since the start)"
    wait "$old_build_pid" || { old_build_pid=""; tail -n 30 "$work/build-old.log"; fail "podman build of $old"; }
    old_build_pid=""
    log "  built in $(cat "$work/build-old.time") s (kept as $old_image)"
    # The image of an earlier upgrade's starting point: no run starts from it any more.
    for s in $(podman images --format '{{.Repository}}:{{.Tag}}' localhost/ams-deploy/app | grep -E ':[0-9a-f]{12}$' | grep -vx "$old_image"); do
      podman rmi "$s" >/dev/null 2>&1 || true
    done
  fi
  podman image exists "$old_image" || fail "no image $old_image to start the upgrade from"
  P="${project}u" CF="$work/upgrade-old.yml"
  stack_ports
  compose_file "$CF" "$old_image"
  compose_file "$work/upgrade-new.yml" "$image"
  stack_network
  log "the stack on $old_image (without $new_migration)"
  up_healthy postgres redis receiver
  services_up
  podman exec "$(ctr postgres)" psql -U ams -d ams -tAc "SELECT count(*) FROM knex_migrations WHERE name = '$new_migration'" | grep -qx 0 ||
    fail "the earlier image applied $new_migration"
  read_operator_key
  smoke upgrade
  log "upgrading service by service under load (the first new process applies $new_migration)"
  start_load
  sleep 5
  for s in api embedding-worker webhook-dispatcher api-2 embedding-worker-2; do
    c=$(ctr "$s")
    podman stop -t 20 "$c" >/dev/null 2>>"$work/podman.log"
    podman rm "$c" >/dev/null 2>>"$work/podman.log"
    podman-compose -p "$P" -f "$work/upgrade-new.yml" up -d --no-deps "$s" >>"$work/compose-up.log" 2>&1 || fail "podman-compose up $s on the new image"
    case $s in api) wait_http "$api/v1/health" 90 "$c" ;; api-2) wait_http "$api2/v1/health" 90 "$c" ;; esac
    wait_healthy "$c" 90
    [ "$(podman inspect -f '{{.ImageName}}' "$c")" = "$image" ] || fail "$s is not on $image"
    log "  $s on the new image"
    sleep 3
  done
  podman exec "$(ctr postgres)" psql -U ams -d ams -tAc "SELECT count(*) FROM knex_migrations WHERE name = '$new_migration'" | grep -qx 1 ||
    fail "$new_migration was not applied"
  stop_load_and_verify "$(ctr postgres)" "upgrade under load"
  CF="$work/upgrade-new.yml"
  smoke "after the upgrade"
}

# --- The replica profile: a streaming replica, the APIs reading from it --------------------------------
profile_replica() {
  P="${project}r" CF="$work/replica.yml"
  stack_ports
  compose_file "$CF" "$image" --profile=replica
  stack_network
  export AMS_DATABASE_REPLICA_URLS=postgres://ams:ams@postgres-replica:5432/ams
  log "podman-compose --profile replica up: postgres, its streaming replica, redis, receiver"
  up_healthy postgres redis receiver
  up_healthy postgres-replica
  [ "$(podman exec "$(ctr postgres-replica)" psql -U ams -d ams -tAc 'SELECT pg_is_in_recovery()')" = t ] || fail "postgres-replica is not a standby"
  services_up
  read_operator_key
  smoke replica
  node scripts/deploy/replica-check.mjs "$api" "$api2" "$operator_key" "$user_key" || fail "reads served by the replica"
  unset AMS_DATABASE_REPLICA_URLS
}

# --- The citus profile: a coordinator and two workers -------------------------------------------------
profile_citus() {
  citus_image || fail "the Citus image"
  P="${project}c" CF="$work/citus.yml"
  stack_ports
  compose_file "$CF" "$image" --profile=citus --citus-image=docker.io/citusdata/citus:13.0.3
  stack_network
  export AMS_DATABASE_HOST=citus-coordinator
  log "podman-compose --profile citus up: coordinator, two workers, the workers registered"
  up_healthy citus-coordinator citus-worker-1 citus-worker-2 redis receiver
  compose up -d citus-setup >>"$work/compose-up.log" 2>&1 || fail "podman-compose up citus-setup"
  local c; c=$(ctr citus-setup)
  for ((i = 0; i < 120; i++)); do [ "$(podman inspect -f '{{.State.Status}}' "$c")" = exited ] && break; sleep 0.5; done
  [ "$(podman inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$c")" = "exited 0" ] || { podman logs "$c" | tail -n 5; fail "citus-setup"; }
  services_up
  read_operator_key
  smoke citus
  node scripts/deploy/citus-check.mjs "$api" "$api2" "$(ctr citus-coordinator)" || fail "accounts on two workers"
  unset AMS_DATABASE_HOST
}

timings=()
for p in ${all_profiles//,/ }; do
  has_profile "$p" || continue
  started=$(date +%s)
  log "=== profile $p"
  "profile_$p"
  for q in "${projects[@]}"; do remove_project "$q"; done
  timings+=("$p $(($(date +%s) - started)) s")
  phase_done "profile $p"
  log "=== profile $p: OK in $(($(date +%s) - started)) s"
done
[ -z "${AMS_DEPLOY_IMAGE:-}" ] && prune_build_layers "$work/build.log" "$work/build-old.log"
log "OK: $(IFS=,; echo "${timings[*]}" | sed 's/,/, /g')"
exit 0
}
