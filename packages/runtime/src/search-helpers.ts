import type { Logger } from '@ams/core';
import { CommonWords, type Knex, SearchRecorder } from '@ams/db';

/** The process's search helpers over its database: keyword ranking's common words and the search records' writer. */
export function searchHelpers(db: Knex, logger: Logger): { commonWords: CommonWords; searches: SearchRecorder } {
  return {
    commonWords: new CommonWords(db),
    searches: new SearchRecorder(db, (err, lost) => logger.warn('searches not recorded', { error: err.message, lost })),
  };
}
