import type { Logger } from '@ams/core';
import { createDatabase } from '../../src';

describe("the database driver's own messages", () => {
  it('reach the service logger, one line each, and are never printed with console.log', async () => {
    const lines: Array<[string, string, unknown]> = [];
    const at = (level: string) => (message: string, meta: unknown) => lines.push([level, message, meta]);
    const logger = { warn: at('warn'), error: at('error'), debug: at('debug'), info: at('info') } as unknown as Logger;
    const printed = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    // Nothing listens on port 1: every connection is refused at once.
    const db = await createDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/nowhere', dataDir: '', dbPoolMax: 1 }, logger);
    let printedCalls: unknown[][];
    try {
      await expect(db.knex.raw('select 1')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await db.close();
      printedCalls = [...printed.mock.calls];
      printed.mockRestore();
    }
    expect(lines).toContainEqual(['warn', 'database driver', { detail: expect.stringMatching(/^Acquire connection error: Error: connect ECONNREFUSED/) }]);
    expect(printedCalls).toEqual([]);
  });
});
