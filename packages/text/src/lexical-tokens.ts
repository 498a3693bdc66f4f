/** Common English function words; they carry no topic, so lexical scoring ignores them. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she ' +
    'should so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up very was we were what when where which while who whom why will with ' +
    'would you your yours yourself yourselves also may might must shall us via per etc vs let lets ' +
    "i'm it's don't doesn't didn't isn't aren't wasn't can't won't we're they're you're"
  ).split(' '),
);

/**
 * A light suffix stripper (not Porter): enough for "deploys"/"deployed"/"deploying" to meet at
 * "deploy" and "cache"/"caches"/"caching" at "cach". Words of four letters or fewer are left alone.
 */
function stem(word: string): string {
  if (word.length <= 4) return word;
  const rules: Array<[RegExp, string]> = [
    [/ies$/, 'y'],
    [/(ss|sh|ch|x|z)es$/, '$1'],
    [/ing$/, ''],
    [/ied$/, 'y'],
    [/ed$/, ''],
    [/ly$/, ''],
    [/([^s])s$/, '$1'],
    [/([^e])e$/, '$1'],
  ];
  for (const [pattern, replacement] of rules) {
    if (pattern.test(word)) {
      const stemmed = word.replace(pattern, replacement);
      return stemmed.length >= 3 ? stemmed : word;
    }
  }
  return word;
}

/** Lowercased, stemmed content tokens (letters/digits, keeping inner "." "+" "#" as in "node.js"; hyphens split: "on-call" → "on", "call"). */
export function contentTokens(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’.+#][\p{L}\p{N}]+)*[+#]*/gu) ?? [];
  const tokens: string[] = [];
  for (const word of words) {
    const w = word.replace(/['’]s$/, '');
    if (STOPWORDS.has(w) || STOPWORDS.has(word)) continue;
    if (w.length < 2 && !/\d/.test(w)) continue;
    tokens.push(stem(w));
  }
  return tokens;
}
