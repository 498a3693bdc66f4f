import { issueApiKey as issue, type CreateKeyInput } from '@ams/accounts';
import type { AppContext } from './context';

/** A new key for an account, on the process's database: how the test app and the benches mint theirs. */
export const issueApiKey = (ctx: Pick<AppContext, 'db'>, accountId: string, input: CreateKeyInput) => issue({ db: ctx.db.knex }, accountId, input);
