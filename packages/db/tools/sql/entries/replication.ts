import { replicationRepository } from '../../../src/repositories/replication.repository';
import { entriesOf } from '../entry';

export const replication = entriesOf('replicationRepository', replicationRepository, {
  insertPosition: [{ args: [] }],
  walLayout: [{ args: [] }],
  standbyReplay: [{ args: [] }],
});
