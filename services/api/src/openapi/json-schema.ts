import type { Schema } from 'joi';
import parse from 'joi-to-json';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = Record<string, unknown>;

interface JoiDescription {
  type?: string;
  keys?: Record<string, JoiDescription>;
  items?: JoiDescription[];
  patterns?: Array<{ schema?: unknown; regex?: string }>;
}

/**
 * joi-to-json drops `.pattern(keySchema, value)` (keys matched by a joi schema, not a regex) and
 * writes `additionalProperties: false` instead, which would forbid what the route accepts: those
 * objects take any key.
 */
function allowSchemaKeyedPatterns(desc: JoiDescription, json: JsonSchema | undefined): void {
  if (!json || typeof json !== 'object') return;
  if (desc.type === 'object') {
    if (desc.patterns?.some((p) => p.schema !== undefined)) json.additionalProperties = true;
    const props = json.properties as Record<string, JsonSchema> | undefined;
    for (const [key, child] of Object.entries(desc.keys ?? {})) allowSchemaKeyedPatterns(child, props?.[key]);
  }
  if (desc.type === 'array' && desc.items?.[0]) allowSchemaKeyedPatterns(desc.items[0], json.items as JsonSchema | undefined);
}

/** A joi schema as OpenAPI 3.1 JSON Schema: the request schemas beside each route are the source. */
export function toJsonSchema(schema: Schema): JsonSchema {
  const json = parse(schema, 'open-api-3.1') as JsonSchema;
  allowSchemaKeyedPatterns(schema.describe() as JoiDescription, json);
  return json;
}
