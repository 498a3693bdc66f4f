import crypto from 'node:crypto';
import { secretBoxFor, SecretBox } from '@ams/core';
import { revealWebhookSecret, sealWebhookSecrets, webhooksRepository, WebhookRow } from '@ams/db';
import { createAccount, createTestApp, expectError, bearer, TestApp, TestAccount } from '@ams/testing';

describe('webhook secrets and targets', () => {
  let t: TestApp;
  let acct: TestAccount;
  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_LOOPBACK: 'false' });
    acct = await createAccount(t.ctx);
  });
  afterAll(() => t.close());

  const row = async (id: string) => (await t.ctx.db.knex('webhooks').where({ id }).first()) as WebhookRow;

  describe('secrets are sealed at rest', () => {
    it('stores a new secret sealed, never in plaintext, and still signs with it', async () => {
      const res = await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://h.example.com/a', secret: 'top-secret-123' });
      expect(res.status).toBe(201);
      expect(res.body.has_secret).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain('top-secret');
      const stored = await row(res.body.id);
      expect(stored.secret).toBeNull();
      expect(stored.secret_sealed).not.toContain('top-secret');
      expect(revealWebhookSecret(stored, secretBoxFor(t.ctx.config))).toBe('top-secret-123');
    });

    it('PATCH of the secret seals the new one', async () => {
      const res = await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://h.example.com/b' });
      expect(res.body.has_secret).toBe(false);
      const patched = await t.request().patch(`/v1/webhooks/${res.body.id}`).set(bearer(acct.key)).send({ secret: 'second-secret' });
      expect(patched.body.has_secret).toBe(true);
      const stored = await row(res.body.id);
      expect(stored.secret).toBeNull();
      expect(revealWebhookSecret(stored, secretBoxFor(t.ctx.config))).toBe('second-secret');
    });

    it('start-up sealing encrypts plaintext rows an older version stored, then re-seals them on key rotation', async () => {
      const legacy = await webhooksRepository.insert(t.ctx.db.knex, acct.accountId, { url: 'https://h.example.com/legacy', secret: 'legacy-plain' });
      expect(legacy.secret).toBe('legacy-plain');

      const box = secretBoxFor(t.ctx.config);
      expect(await sealWebhookSecrets(t.ctx.db.knex, box)).toBeGreaterThanOrEqual(1);
      const sealed = await row(legacy.id);
      expect(sealed.secret).toBeNull();
      expect(revealWebhookSecret(sealed, box)).toBe('legacy-plain');
      expect(await sealWebhookSecrets(t.ctx.db.knex, box)).toBe(0); // idempotent

      // Rotation: the new key current, the old one still configured as previous.
      const oldKey = t.ctx.config.secrets.webhookSecretKey!;
      const newKey = crypto.randomBytes(32);
      const rotated = new SecretBox(newKey, [oldKey]);
      expect(await sealWebhookSecrets(t.ctx.db.knex, rotated)).toBeGreaterThanOrEqual(1);
      const resealed = await row(legacy.id);
      expect(rotated.isCurrent(resealed.secret_sealed!)).toBe(true);
      expect(revealWebhookSecret(resealed, rotated)).toBe('legacy-plain');
      // Back to the run's key so the rest of the suite (one database) can open every row.
      await sealWebhookSecrets(t.ctx.db.knex, new SecretBox(oldKey, [newKey]));
      expect(revealWebhookSecret(await row(legacy.id), box)).toBe('legacy-plain');
    });
  });

  describe('targets refused at registration', () => {
    it.each([
      'https://127.0.0.1/hook',
      'https://127.1/hook',
      'https://2130706433/hook',
      'https://0x7f.0.0.1/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fe80::1]/hook',
      'https://100.64.0.1/hook',
      'https://localhost/hook',
      'https://api.localhost/hook',
      'https://metadata.google.internal/computeMetadata/v1',
      'https://printer.local/hook',
    ])('POST /v1/webhooks %s is 422 on url', async (url) => {
      const res = await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url });
      const err = expectError(res, 422, 'validation_error');
      expect(err.details).toEqual([{ field: 'url', message: expect.stringMatching(/^url must point to a public/) }]);
    });

    it('refuses credentials in the URL', async () => {
      const res = await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://user:pass@h.example.com/hook' });
      expect(expectError(res, 422, 'validation_error').details![0]!.message).toMatch(/credentials/);
    });

    it('refuses a private target on PATCH and leaves the webhook as it was', async () => {
      const created = await t.request().post('/v1/webhooks').set(bearer(acct.key)).send({ url: 'https://h.example.com/keep' });
      const res = await t.request().patch(`/v1/webhooks/${created.body.id}`).set(bearer(acct.key)).send({ url: 'https://10.0.0.1/x' });
      expectError(res, 422, 'validation_error');
      expect((await row(created.body.id)).url).toBe('https://h.example.com/keep');
    });

    it('refuses a private one-shot webhook_url on a v2 create and stores no memory', async () => {
      const before = await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count({ n: '*' }).first();
      const res = await t.request().post('/v2/memories').set(bearer(acct.key)).send({ content: 'x', agent_id: 'a', webhook_url: 'https://169.254.169.254/' });
      expect(expectError(res, 422, 'validation_error').details![0]!.field).toBe('webhook_url');
      expect(await t.ctx.db.knex('memories').where({ account_id: acct.accountId }).count({ n: '*' }).first()).toEqual(before);
    });

    it('redacts credentials of a URL stored before they were refused', async () => {
      const legacy = await webhooksRepository.insert(t.ctx.db.knex, acct.accountId, { url: 'https://user:hunter2@h.example.com/old' });
      const res = await t.request().get(`/v1/webhooks/${legacy.id}`).set(bearer(acct.key));
      expect(res.status).toBe(200);
      expect(res.body.url).toBe('https://redacted@h.example.com/old');
    });
  });
});
