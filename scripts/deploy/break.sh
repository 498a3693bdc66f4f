#!/usr/bin/env bash
# For AMS_DEPLOY_BREAK (scripts/test-deploy.sh): the built image with one fault a user would hit,
# made as a layer on top of it (the image's own build is the same up to that point):
#   healthcheck-port    the HEALTHCHECK asks the wrong port;
#   missing-dependency  a runtime dependency (bee-queue) missing from node_modules.
# Usage: break.sh <fault> <image> <tag for the broken image>
set -euo pipefail
fault=$1 image=$2 tag=$3
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
case $fault in
  healthcheck-port)
    echo "FROM $image" >"$ctx/Dockerfile"
    podman image inspect -f '{{json .Config.Healthcheck.Test}}' "$image" | node -e '
      let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
        const [, ...command] = JSON.parse(s);
        console.log(`HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ${JSON.stringify(command.map((a) => a.replace("(process.env.PORT || 8080)", "(Number(process.env.PORT || 8080) + 1)")))}`);
      })' >>"$ctx/Dockerfile" ;;
  missing-dependency)
    printf 'FROM %s\nUSER root\nRUN rm -rf /app/node_modules/bee-queue\nUSER node\n' "$image" >"$ctx/Dockerfile" ;;
  *) echo "unknown fault: $fault (healthcheck-port, missing-dependency)" >&2; exit 2 ;;
esac
podman build --format docker -q -t "$tag" "$ctx" >/dev/null
