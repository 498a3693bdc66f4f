#!/usr/bin/env bash
# The suites on a Citus cluster (docs/scaling.md): a coordinator and two workers on this machine
# (infra/citus-cluster.sh builds Citus when missing and starts them), then the API's integration
# suite, the db package's (claims, fairness), the worker's and dispatcher's process suites and
# test/citus (single-shard plans, rebalancing, a worker down) with
# TEST_BACKEND=citus. Paths given replace those (one file, while working on it).
set -euo pipefail
cd "$(dirname "$0")/.."

bash infra/citus-cluster.sh up

# Tests left out on Citus, each with its reason. What they cover runs in the PostgreSQL project.
excluded=(
  # EXPLAIN on the coordinator shows Citus' plan, not a shard's index: test/citus/router-plans.test.ts reads Citus plans.
  'uses the HNSW index for semantic search once the table is big enough'
  'switches models while searches keep answering, then answers from the new vectors'
  # Timing: built around one PostgreSQL's latencies (a cancel reaching the running scan within 10 s,
  # a bounded queue filled by slow queries, creates arriving within one 50 ms batch window).
  'cancels the running semantic search'
  'refuses at once a request beyond the bounded queue'
  'embeds memories that arrive together in one batch'
  # A p99 bound on a store of 100k memories generated in SQL: a single PostgreSQL's latency (search-cost.test.ts).
  'p99 within 1 s'
  # Its set-up (every route's schema fuzzed, a 120 s hook) does not finish on one machine running three clusters.
  'fuzzing every route from its own schema'
)
pattern="^(?!.*($(IFS='|'; echo "${excluded[*]}" | sed 's/[.()]/\\&/g'))).*"

jest() { TEST_BACKEND=citus node node_modules/jest/bin/jest.js --testNamePattern "$pattern" "$@"; }
if [ $# -gt 0 ]; then jest --maxWorkers=2 --selectProjects integration processes citus -- "$@"; exit; fi
status=0
jest --maxWorkers=2 --selectProjects integration -- services/api/test/integration packages/db/test/integration || status=$?
# test/citus alone, one file at a time: the worker-fault test stops a worker of the cluster every
# other file uses, and the rebalance test adds one and moves shards.
jest --maxWorkers=1 --selectProjects citus -- test/citus || status=$?
# The embedding worker's and the dispatcher's process suites: two workers claiming, one killed mid-batch.
jest --maxWorkers=2 --selectProjects processes -- services/embedding-worker/test/integration/worker-process.test.ts \
  services/webhook-dispatcher/test/integration/dispatcher.test.ts || status=$?
exit $status
