/** Entity types of the spec, in the spec's order. */
export const ENTITY_TYPES = [
  'person',
  'organization',
  'technology',
  'project',
  'product',
  'location',
  'document',
  'metric',
  'event',
  'skill',
  'concept',
  'other',
] as const;

export type EntityType = (typeof ENTITY_TYPES)[number];

const ENTITY_TYPE_SET: ReadonlySet<string> = new Set(ENTITY_TYPES);

/** The spec accepts `place` as an alias of `location`. */
const ENTITY_TYPE_ALIASES: Readonly<Record<string, EntityType>> = { place: 'location' };

/**
 * Maps an input type (any case, surrounding spaces ignored) to its canonical entity type;
 * `undefined` when it is neither a type nor an alias, so validators can reject it.
 */
export function normalizeEntityType(input: string): EntityType | undefined {
  const key = input.trim().toLowerCase();
  if (ENTITY_TYPE_SET.has(key)) return key as EntityType;
  return ENTITY_TYPE_ALIASES[key];
}
