export { classifyMemoryType } from './classify-memory-type';
export { ENTITY_TYPES, normalizeEntityType, type EntityType } from './entity-types';
export {
  extractEntities,
  isEntityRich,
  mentionedEntityNames,
  normalizeEntityName,
  type ExtractedEntity,
} from './extract-entities';
export { splitSentences, estimateTokens, truncateAtWord } from './sentences';
export { compressToQuery, lexicalOverlapScore } from './compress';
export { extractiveSummary, SUMMARY_LINE_MAX_CHARS, type SummaryItem } from './summarize';
export { NLP_MAX_CHARS } from './compromise-doc';
