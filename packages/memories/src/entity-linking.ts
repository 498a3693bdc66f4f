import type { FoundEntity } from '@ams/db';
import { extractEntities, isEntityRich } from '@ams/text';
import type { EntityRef } from './memory.presenter';

/** true: always extract; false: never; null: only when the content looks entity-rich. */
function shouldExtract(mode: boolean | null, content: string): boolean {
  return mode === true || (mode === null && isEntityRich(content));
}

/**
 * The entities of new memories (per `autoExtract`): what to upsert and link, with the extraction
 * confidence as relevance (newMemoriesRepository stores them), and the refs each memory shows.
 */
export function entitiesToLink(
  memories: Array<{ id: string; accountId: string; content: string }>,
  autoExtract: boolean | null,
): { found: FoundEntity[]; refs: Map<string, EntityRef[]> } {
  const found: FoundEntity[] = [];
  const refs = new Map<string, EntityRef[]>();
  for (const m of memories) {
    if (!shouldExtract(autoExtract, m.content)) continue;
    const extracted = extractEntities(m.content);
    refs.set(m.id, extracted.map((e) => ({ type: e.type, value: e.name, confidence: e.confidence })));
    for (const e of extracted) found.push({ accountId: m.accountId, memoryId: m.id, name: e.name, entityType: e.type, relevance: e.confidence });
  }
  return { found, refs };
}
