/**
 * npm run bench:retiering [-- --n 100000 --events 20000 --batch 1000 --writers 4]
 *
 * Re-tiering (docs/api.md, "Re-tiering") of one account's N memories on PostgreSQL: N memories
 * placed over the last 200 days (a tenth pinned, importance spread), EVENTS recorded searches of
 * 10 results each (skewed towards a hot set), then one run of the job (the fold of the recalls,
 * then the bounded SKIP LOCKED batches) while WRITERS loops update random memories of the same
 * account. Prints the run's time and rate, the moves, and the writers' latency during the run
 * beside the same writers without it: the job must not block writes.
 */
import { performance } from 'node:perf_hooks';
import { memoriesRepository, retieringRepository } from '@ams/db';
import { retierAccount } from '@ams/memories';
import { arg, percentiles, prng, sentence, startBenchServer } from './support';

const DAY_MS = 86_400_000;

async function main(): Promise<void> {
  const n = arg('n', 100_000);
  const events = arg('events', 20_000);
  const batchSize = arg('batch', 1_000);
  const writers = arg('writers', 4);
  const server = await startBenchServer();
  const db = server.ctx.db.knex;
  const rand = prng(7);
  try {
    const [agent] = await db('agents').insert({ account_id: server.accountId, name: 'bench' }).returning('id');
    const loadStart = performance.now();
    for (let i = 0; i < n; i += 5_000) {
      const rows = [];
      for (let j = i; j < Math.min(n, i + 5_000); j++) {
        const importance = Math.round(rand() * 100) / 100;
        const pinned = rand() < 0.1;
        rows.push({
          account_id: server.accountId,
          agent_id: agent.id,
          content: sentence(rand),
          memory_type: 'fact',
          importance,
          tier: importance >= 0.8 ? 'hot' : importance >= 0.3 ? 'warm' : 'cold',
          tier_explicit: pinned,
          embedding: null,
          embedding_status: 'ready',
          created_at: new Date(Date.now() - rand() * 200 * DAY_MS),
        });
      }
      await db('memories').insert(rows);
    }
    const ids: string[] = (await db('memories').where('account_id', server.accountId).select('id')).map((r: { id: string }) => r.id);
    // A fifth of the searches' results come from a hot set of 1% of the memories.
    const hot = ids.slice(0, Math.max(1, Math.floor(n / 100)));
    const pick = () => (rand() < 0.2 ? hot[Math.floor(rand() * hot.length)]! : ids[Math.floor(rand() * ids.length)]!);
    for (let i = 0; i < events; i += 1_000) {
      const rows = [];
      for (let j = i; j < Math.min(events, i + 1_000); j++) {
        const memoryIds = [...new Set(Array.from({ length: 10 }, pick))];
        rows.push({
          account_id: server.accountId,
          query: 'bench',
          search_mode: 'semantic',
          result_count: memoryIds.length,
          response_ms: 1,
          memory_ids: db.raw('?::uuid[]', [memoryIds]),
          created_at: new Date(Date.now() - 120_000 - rand() * 6 * DAY_MS),
        });
      }
      await db('search_events').insert(rows);
    }
    await db.raw('ANALYZE memories; ANALYZE search_events');
    console.error(`loaded ${n} memories and ${events} searches in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);

    /** WRITERS loops of single-memory updates until `until` resolves; their latencies in ms. */
    const writeWhile = async (until: Promise<unknown>): Promise<number[]> => {
      let done = false;
      void until.finally(() => (done = true));
      const latencies: number[] = [];
      await Promise.all(
        Array.from({ length: writers }, async () => {
          while (!done) {
            const t0 = performance.now();
            await memoriesRepository.update(db, server.accountId, pick(), { metadata: { touched: true } });
            latencies.push(performance.now() - t0);
          }
        }),
      );
      return latencies;
    };
    const baseline = await writeWhile(new Promise((r) => setTimeout(r, 5_000)));

    const settings = await retieringRepository.saveSettings(db, server.accountId, { enabled: true });
    const started = performance.now();
    const run = retierAccount(db, settings, { batchSize });
    const during = await writeWhile(run);
    const outcome = await run;
    const seconds = (performance.now() - started) / 1000;
    const moves = await db('tier_moves').where('account_id', server.accountId).count<{ count: number }[]>('* as count');
    const pinnedMoved = await db('tier_moves as t')
      .join('memories as m', function () {
        this.on('m.account_id', 't.account_id').andOn('m.id', 't.memory_id');
      })
      .where('t.account_id', server.accountId)
      .where('m.tier_explicit', true)
      .count<{ count: number }[]>('* as count');
    const b = percentiles(baseline);
    const d = percentiles(during);
    const maxDuring = Math.max(...during);
    console.log(`\n| re-tiering of ${n.toLocaleString('en')} memories (${events.toLocaleString('en')} searches folded, batches of ${batchSize}) | figure |`);
    console.log('|---|---|');
    console.log(`| run (fold + ${outcome.scanned_batches} batches) | ${seconds.toFixed(2)} s, ${Math.round(n / seconds).toLocaleString('en')} memories/s |`);
    console.log(`| recalls folded | ${outcome.recalls_folded.toLocaleString('en')} memories |`);
    console.log(`| moved | ${outcome.promoted} promoted, ${outcome.demoted} demoted (${moves[0]!.count} tier_moves rows) |`);
    console.log(`| pinned memories moved | ${pinnedMoved[0]!.count} |`);
    console.log(`| ${writers} writers' update latency without the job | p50 ${b.p50} ms, p95 ${b.p95} ms, p99 ${b.p99} ms (${baseline.length} updates in 5 s) |`);
    console.log(`| the same during the run | p50 ${d.p50} ms, p95 ${d.p95} ms, p99 ${d.p99} ms, max ${maxDuring.toFixed(1)} ms (${during.length} updates in ${seconds.toFixed(1)} s) |`);
  } finally {
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
