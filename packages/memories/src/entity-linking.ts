import { Db, entitiesRepository, entityLinksRepository } from '@ams/db';
import { extractEntities, isEntityRich } from '@ams/text';
import type { EntityRef } from './memory.presenter';

/** true: always extract; false: never; null: only when the content looks entity-rich. */
export function shouldExtract(mode: boolean | null, content: string): boolean {
  return mode === true || (mode === null && isEntityRich(content));
}

/**
 * Extracts entities from each memory's content, upserts them per account (same name and type is
 * the same entity) and links them with the extraction confidence as relevance. Three statements
 * for the whole set, whatever its size.
 */
export async function linkExtractedEntities(
  trx: Db,
  accountId: string,
  memories: Array<{ id: string; content: string }>,
): Promise<Map<string, EntityRef[]>> {
  const extracted = memories.map((m) => ({ memoryId: m.id, entities: extractEntities(m.content) }));
  const unique = new Map<string, { name: string; entityType: string }>();
  for (const { entities } of extracted) {
    for (const e of entities) unique.set(`${e.type}:${e.name.toLowerCase()}`, { name: e.name, entityType: e.type });
  }
  const refs = new Map<string, EntityRef[]>();
  if (unique.size === 0) return refs;
  const stored = await entitiesRepository.upsertMany(trx, accountId, [...unique.values()]);
  const idByKey = new Map(stored.map((s) => [`${s.entity_type}:${s.name.toLowerCase()}`, s.id]));
  const links = extracted.flatMap(({ memoryId, entities }) =>
    entities.flatMap((e) => {
      const entityId = idByKey.get(`${e.type}:${e.name.toLowerCase()}`);
      return entityId ? [{ entityId, memoryId, relevanceScore: e.confidence }] : [];
    }),
  );
  await entityLinksRepository.insertMany(trx, accountId, links);
  for (const { memoryId, entities } of extracted) {
    refs.set(memoryId, entities.map((e) => ({ type: e.type, value: e.name, confidence: e.confidence })));
  }
  return refs;
}
