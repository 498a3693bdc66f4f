/**
 * Claims work account by account, so that on Citus every claim is a single-shard statement (Citus
 * refuses a `FOR UPDATE SKIP LOCKED` spanning shards) and one account's backlog never starves
 * another's: `limit` is shared out over the accounts with work waiting, the longest-waiting first,
 * each getting an equal share of what is left, and what an account cannot use passes to the next.
 *
 * `accounts` lists the accounts with claimable work, longest-waiting first (at most `limit`);
 * `claimFor` claims up to `n` items of one account (SKIP LOCKED: two claimers never get the same).
 */
export async function claimAcrossAccounts<T>(
  limit: number,
  accounts: (limit: number) => Promise<string[]>,
  claimFor: (accountId: string, n: number) => Promise<T[]>,
): Promise<T[]> {
  if (limit <= 0) return [];
  let open = await accounts(limit);
  const claimed: T[] = [];
  while (open.length && claimed.length < limit) {
    const more: string[] = [];
    for (const [i, accountId] of open.entries()) {
      if (claimed.length >= limit) break;
      const share = Math.ceil((limit - claimed.length) / (open.length - i));
      const got = await claimFor(accountId, share);
      claimed.push(...got);
      // Took its whole share: it may have more for the next round.
      if (got.length === share) more.push(accountId);
    }
    open = more;
  }
  return claimed;
}
