import { EXPORT_KINDS, exportRepository, type ExportCursor, type ExportFilters, type ExportKind } from '../../../src/repositories/export.repository';
import { entriesOf } from '../entry';
import { ACCOUNT, AGENT, AT, EARLIER, MEMORY, PROJECT } from '../fixtures';

const FILTERS = { accountId: ACCOUNT, agentId: AGENT, project: { id: PROJECT, slug: 'billing' }, createdAfter: EARLIER, createdBefore: AT, includeVectors: true };

export const exportEntries = entriesOf('exportRepository', exportRepository, {
  page: [
    ...EXPORT_KINDS.map((kind) => ({ name: `${kind}s, the first page`, args: [kind, { accountId: ACCOUNT, includeVectors: false }, undefined, 500] as [ExportKind, ExportFilters, ExportCursor | undefined, number] })),
    { name: 'memories of an agent and a project, after a cursor, with vectors', args: ['memory', FILTERS, { ts: EARLIER.toISOString(), key: MEMORY }, 500] },
  ],
});
