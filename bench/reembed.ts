/**
 * npm run bench:reembed [-- --n 1000 --batch 32 --full 1]
 * A store of N memories (lexical vectors), then, in the same process on the same texts: the bare
 * model embedding them in batches (the limit), and a re-embed run to that model end to end (stage,
 * switch, sweep, drop the old vectors). Prints both rates and their ratio. --full 1 uses the
 * generated model of all-MiniLM-L6-v2's shape, else the tiny one (database-bound).
 */
import { performance } from 'node:perf_hooks';
import { reembedRepository } from '@ams/db';
import { LexicalEmbedder, SwitchableEmbedder } from '@ams/embeddings';
import { modelLoader, ReembedRunner } from '@ams/ingestion';
import { ensureGeneratedModel, insertMemories, waitFor } from '@ams/testing';
import { arg, prng, sentence, startBenchServer } from './support';

async function main(): Promise<void> {
  const n = arg('n', 1_000);
  const batch = arg('batch', 32);
  const generated = ensureGeneratedModel({ kind: arg('full', 0) ? 'full' : 'tiny' });
  const embedder = new SwitchableEmbedder(new LexicalEmbedder());
  const server = await startBenchServer(embedder, { inProcessModel: true });
  try {
    const { db: database, logger } = server.ctx;
    const db = database.knex;
    const rand = prng(7);
    const texts = Array.from({ length: n }, () => sentence(rand));
    await insertMemories(server.ctx, server.accountId, 'bench', texts);
    const models = modelLoader({ ...server.ctx.config, embedding: { ...server.ctx.config.embedding, modelDir: generated.modelDir } }, [embedder.active]);
    const target = await models.load(generated.model);
    await target.embed(texts.slice(0, batch)); // warm-up

    let t0 = performance.now();
    for (let i = 0; i < n; i += batch) await target.embed(texts.slice(i, i + batch));
    const bare = n / ((performance.now() - t0) / 1000);

    await reembedRepository.create(db, { fromModel: embedder.model, targetModel: target.model, dimensions: target.dimensions, total: n });
    const runner = new ReembedRunner({ db, logger, models, embedder, owner: 'bench' }, { batchSize: batch, pollMs: 50, leaseMs: 60_000, takesRuns: true });
    t0 = performance.now();
    runner.start();
    await waitFor(async () => (await reembedRepository.latest(db))?.status !== 'running', 3_600_000);
    const staged = n / ((performance.now() - t0) / 1000);
    await waitFor(async () => (await reembedRepository.latest(db))?.status === 'completed', 3_600_000);
    const whole = n / ((performance.now() - t0) / 1000);
    await runner.stop();

    const line = (label: string, value: number, digits = 1) => console.log(`${label.padEnd(58)} ${value.toFixed(digits).padStart(8)}`);
    console.log(`re-embed of ${n} memories to ${target.model} (${target.dimensions} dims), batches of ${batch}, PostgreSQL`);
    line('bare model, memories/s', bare);
    line('re-embed stage (embed + store + progress), memories/s', staged);
    line('re-embed end to end (+ switch, sweep, drop old), memories/s', whole);
    line('stage / bare', staged / bare, 2);
    line('end to end / bare', whole / bare, 2);
  } finally {
    await server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
