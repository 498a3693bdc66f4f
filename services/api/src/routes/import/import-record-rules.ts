import type { RecordRules } from '@ams/portability';
import { findUnsafeText } from '../../validation/text-safety';
import { RECORD_SCHEMAS } from './import-records.schemas';

/** The import's record rules: each line judged by the schema of its type, as a create judges its body. */
export const importRecordRules: RecordRules = {
  unsafeText: findUnsafeText,
  check(type, parsed) {
    const { value, error } = RECORD_SCHEMAS[type].validate(parsed, {
      abortEarly: false,
      convert: true,
      stripUnknown: true,
      errors: { wrap: { label: false } },
    });
    if (!error) return { value: value as Record<string, unknown> };
    return { problems: error.details.map((d) => ({ field: d.path.join('.') || String(d.context?.key ?? ''), message: d.message })) };
  },
};
