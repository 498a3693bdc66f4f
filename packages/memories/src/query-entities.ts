import { mentionedEntityNames } from '@ams/text';

const MAX_NGRAM = 3;

/**
 * Lower-cased names a query may refer to an entity by: what the extractor recognises plus every
 * word n-gram up to three words, so "deploy Kubernetes on AWS" reaches entities named "kubernetes"
 * and "aws" through the (account_id, lower(name)) index without a scan.
 */
export function entityNamesInQuery(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.+#-]*/gu) ?? [];
  const names = new Set(mentionedEntityNames(query).map((n) => n.toLowerCase()));
  for (let n = 1; n <= MAX_NGRAM; n++) {
    for (let i = 0; i + n <= words.length; i++) names.add(words.slice(i, i + n).join(' '));
  }
  return [...names].filter((n) => n.length >= 2).slice(0, 200);
}
