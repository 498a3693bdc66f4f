import { issueApiKey as issue, type CreateKeyInput } from '@ams/accounts';
import type { AppContext } from './context';

/** A new key for an account, with the app's context: how the test app and the benches mint theirs. */
export const issueApiKey = (ctx: AppContext, accountId: string, input: CreateKeyInput) => issue({ db: ctx.db.knex }, accountId, input);
