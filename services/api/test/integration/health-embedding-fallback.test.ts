import { LexicalEmbedder } from '@ams/embeddings';
import { createTestApp } from '@ams/testing';

describe('GET /v1/health when the model could not be had', () => {
  it('says the lexical embedder stands in, and why', async () => {
    const reason = 'Could not download embedding model Xenova/all-MiniLM-L6-v2 from https://huggingface.co: cannot reach huggingface.co (ENOTFOUND).';
    const t = await createTestApp({}, { embedder: new LexicalEmbedder(reason) });
    try {
      const res = await t.request().get('/v1/health');
      expect(res.status).toBe(200);
      expect(res.body.embedding).toEqual({ provider: 'lexical', model: 'lexical-hash-v1', dimensions: 384, fallback: true, fallback_reason: reason });
    } finally {
      await t.close();
    }
  });

  it('says nothing of a fallback when the lexical embedder was chosen', async () => {
    const t = await createTestApp();
    try {
      expect((await t.request().get('/v1/health')).body.embedding).toEqual({ provider: 'lexical', model: 'lexical-hash-v1', dimensions: 384 });
    } finally {
      await t.close();
    }
  });
});
