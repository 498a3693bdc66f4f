export { classifyMemoryType } from './classify-memory-type';
export { ENTITY_TYPES, normalizeEntityType,  } from './entity-types';
export {
  extractEntities,
  isEntityRich,
  mentionedEntityNames,
  
  
} from './extract-entities';
export { splitSentences,  truncateAtWord } from './sentences';
export { compressToQuery,  } from './compress';
export { extractiveSummary,   } from './summarize';
;
