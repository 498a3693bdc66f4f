import { Gauge, type Registry } from 'prom-client';

export interface AccountActivity {
  accountId: string;
  counts: { requests: number; searches: number; embeddings: number };
}

/** The label of the accounts past the top N, summed. */
const OTHER_ACCOUNTS = 'other';

/**
 * Today's (UTC) requests, searches and embeddings per account, read at scrape time from `today`
 * (the process's usage meter: the store's daily totals for the accounts it served, plus its own
 * unflushed counts). Only the `top` accounts by requests get a label of their own; the rest are
 * summed under account="other", so the series stay at most top + 1 per metric.
 */
export function accountActivityGauges(registry: Registry, today: () => AccountActivity[], top: number): void {
  const ranked = () => {
    const all = [...today()].sort((a, b) => b.counts.requests - a.counts.requests || a.accountId.localeCompare(b.accountId));
    const named = all.slice(0, top).map((a) => ({ account: a.accountId, counts: a.counts }));
    const rest = all.slice(top);
    if (rest.length > 0) {
      const sum = (k: keyof AccountActivity['counts']) => rest.reduce((n, a) => n + a.counts[k], 0);
      named.push({ account: OTHER_ACCOUNTS, counts: { requests: sum('requests'), searches: sum('searches'), embeddings: sum('embeddings') } });
    }
    return named;
  };
  const gauge = (what: keyof AccountActivity['counts']) =>
    new Gauge({
      name: `ams_account_${what}_today`,
      help: `${what[0]!.toUpperCase()}${what.slice(1)} of today (UTC) per account: the busiest accounts by requests named, the rest summed as account="other".`,
      labelNames: ['account'],
      registers: [registry],
      collect() {
        this.reset();
        for (const a of ranked()) this.set({ account: a.account }, a.counts[what]);
      },
    });
  gauge('requests');
  gauge('searches');
  gauge('embeddings');
}
