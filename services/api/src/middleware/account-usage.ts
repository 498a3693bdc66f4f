import type { Request, RequestHandler } from 'express';
import { secondsUntilUtcMidnight, type UsageMeter } from '@ams/accounts';
import { ApiError } from '@ams/core';

const SEARCH_ROUTES = new Set(['/v1/memories/search', '/v2/context/build', '/v2/context', '/v1/memories/context', '/v1/decisions/check', '/v1/patterns/search']);
const ONE_EMBEDDING_ROUTES = new Set(['/v1/memories', '/v2/memories', '/v1/decisions', '/v1/patterns']);

const MEMORY_PATH = /^\/v1\/memories\/[^/]+$/;

/** A count of the body's array member, at least 1 (a malformed body is refused by its route, and then not counted). */
const itemsOf = (value: unknown) => (Array.isArray(value) ? Math.max(1, value.length) : 1);

/**
 * What a request spends of the account's daily budgets: a search, and the texts it asks to embed
 * (a create's content, each batch item, a memory's new content, each /v1/embed text, a search's
 * query unless keyword-only).
 */
function dailySpend(req: Request): { searches: number; embeddings: number } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  // A memory's new content is embedded again.
  if (req.method === 'PATCH' && MEMORY_PATH.test(req.path)) return { searches: 0, embeddings: typeof body.content === 'string' ? 1 : 0 };
  if (req.method !== 'POST') return { searches: 0, embeddings: 0 };
  if (SEARCH_ROUTES.has(req.path)) return { searches: 1, embeddings: body.search_mode === 'keyword' ? 0 : 1 };
  if (ONE_EMBEDDING_ROUTES.has(req.path)) return { searches: 0, embeddings: 1 };
  if (req.path === '/v1/memories/batch') return { searches: 0, embeddings: itemsOf(body.memories) };
  if (req.path === '/v1/embed') return { searches: 0, embeddings: body.texts === undefined ? 1 : itemsOf(body.texts) };
  return { searches: 0, embeddings: 0 };
}

/**
 * Counts each authenticated request, and the searches and embeddings of those that succeed, to the
 * account (UsageMeter; a failed request's are given back when it ends); refuses with 429 and Retry-After (seconds to the next UTC midnight) a request
 * that would take the account past its searches_per_day or embeddings_per_day. Runs after the body
 * is parsed (a batch's size is its item count).
 */
export function accountUsage(meter: UsageMeter): RequestHandler {
  return (req, res, next) => {
    const auth = req.auth;
    if (!auth) return next();
    meter.count(auth.accountId, { requests: 1 });
    const spend = dailySpend(req);
    if (spend.searches === 0 && spend.embeddings === 0) return next();
    const limits = meter.limitsOf(auth.accountId);
    const check = async () => {
      if (limits.searches_per_day > 0 || limits.embeddings_per_day > 0) {
        const today = await meter.today(auth.accountId);
        const over =
          spend.searches > 0 && limits.searches_per_day > 0 && today.searches + spend.searches > limits.searches_per_day
            ? { name: 'searches_per_day', limit: limits.searches_per_day, used: today.searches, what: 'searches' }
            : spend.embeddings > 0 && limits.embeddings_per_day > 0 && today.embeddings + spend.embeddings > limits.embeddings_per_day
              ? { name: 'embeddings_per_day', limit: limits.embeddings_per_day, used: today.embeddings, what: 'embeddings', asked: spend.embeddings }
              : undefined;
        if (over) {
          const seconds = secondsUntilUtcMidnight();
          res.setHeader('Retry-After', String(seconds));
          const asked = 'asked' in over ? `; this request needs ${over.asked}` : '';
          throw new ApiError('rate_limit_exceeded', `Daily limit reached: ${over.name} is ${over.limit}, and the account has used ${over.used} ${over.what} today (UTC)${asked}. Retry in ${seconds} seconds.`);
        }
      }
      // Reserved now, so concurrent requests see each other; given back if the request fails.
      meter.count(auth.accountId, spend);
      res.once('finish', () => {
        if (res.statusCode >= 400) meter.count(auth.accountId, { searches: -spend.searches, embeddings: -spend.embeddings });
      });
    };
    check().then(() => next(), next);
  };
}
