import { nlpInput, parseText, type ParsedText, type TaggedTerm } from './compromise-doc';
import type { MemoryType } from '@ams/vocabulary';
import { extractEntities } from './extract-entities';

// Cue lists run on lowercased text with curly apostrophes straightened.

/** Whole-word alternatives: anyOf('need to', 'todo') matches "we need to" but not "needle". */
const anyOf = (...alternatives: string[]): RegExp => new RegExp(String.raw`\b(?:${alternatives.join('|')})\b`);

const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const MONTH =
  '(?:(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\\.?|january|february|march|april|may|june|july|august|september|october|november|december)';

/** Instructions to or configuration of the agent itself. */
const SYSTEM_CUES = anyOf(
  'system (?:prompt|message|instructions?)',
  'you are (?:an?|the) (?:[\\w-]+ ){0,3}(?:assistant|agent|bot|chatbot|model|ai|copilot)',
  'as an ai',
  'your (?:role|persona|instructions?|task) (?:is|are)',
  'act as (?:an?|the)',
  "(?:do not|don't|never) reveal",
  '(?:agent|assistant|model|bot) (?:config|configuration|settings|instructions)',
);
const MODEL_SETTINGS = /\b(?:temperature|max_tokens|top_p)\s*[=:]/;
/** "Always respond in French" style standing orders at the start of a sentence. */
const STANDING_ORDER = /(?:^|[.!?\n]\s*)(?:always|never|only) (?:respond|answer|reply|speak|write)\b/;

const PREFERENCE_CUES = anyOf(
  'prefers?',
  'preferred',
  'preferring',
  'preferences?',
  'favou?rites?',
  'would rather',
  'likes',
  'loves',
  'enjoys',
  'dislikes',
  'hates',
  "(?:don't|doesn't|do not|does not) (?:like|want|enjoy)",
  'not a fan of',
  '(?:is|am|are|a big) fan of',
  'always uses?',
  'never uses?',
  '(?:i|we|they|he|she|user|users|customer|client) (?:really )?(?:like|love|enjoy|hate|dislike)s?',
);

/** Explicit markers of a lesson drawn from experience. */
const STRONG_INSIGHT_CUES = anyOf(
  'learned',
  'learnt',
  'reali[sz]ed',
  'turns out',
  'turned out',
  'lessons?',
  'takeaways?',
  'key insight',
  'insights?',
  'discovered',
  'figured out',
  'root cause',
  'in hindsight',
  'the trick is',
  'the key is',
  'it seems that',
);
/** Reasoning connectives: weaker, so they lose to tasks and events. */
const WEAK_INSIGHT_CUES = anyOf(
  'because',
  'therefore',
  'thus',
  'hence',
  'as a result',
  'which means',
  'this means',
  'due to',
  'consequently',
  "that's why",
  'the reason',
);

const TASK_CUES = anyOf(
  'todo',
  'to-do',
  'action items?',
  'needs? to',
  'have to',
  'has to',
  'remember to',
  "(?:don't|do not) forget",
  'make sure',
  'follow[- ]up',
  'reminder',
  'deadline',
  'due (?:by|on|date)',
  '(?:i|we|you|they|someone|team) (?:should|must|ought to)',
  '(?:i|we|you|the team|team) (?:will|shall|are going to|am going to|is going to|plan to|intend to|plan on)',
  "(?:i|we|you)'ll",
  `by (?:${WEEKDAY}|tomorrow|tonight|eod|eow|end of (?:the )?(?:day|week|month|sprint|quarter)|next (?:week|month|sprint|quarter))`,
);

/** Dates and times, beyond what compromise's pre-tagger marks #Date. */
const DATE_CUES = anyOf(
  `${MONTH} \\d{1,2}(?:st|nd|rd|th)?`,
  `\\d{1,2}(?:st|nd|rd|th)? (?:of )?${MONTH}`,
  `(?:on|last|this|next) ${WEEKDAY}`,
  'in (?:19|20)\\d{2}',
  '\\d{4}-\\d{2}-\\d{2}',
  '\\d{1,2}:\\d{2}',
  '\\d{1,2} ?(?:am|pm)',
  'yesterday',
  'today',
  'tonight',
  'earlier today',
  'this (?:morning|afternoon|evening|week)',
  'last (?:night|week|month|year|sprint|quarter)',
  '\\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago',
);
/** Nouns naming something that happens at a time. */
const EVENT_NOUNS = anyOf(
  'meeting',
  'stand-?up',
  'incident',
  'outage',
  'release',
  'launch',
  'demo',
  'interview',
  'conference',
  'workshop',
  'webinar',
  'deploy',
  'deployment',
  'migration',
  'retro',
  'retrospective',
  'offsite',
  'kick-?off',
  'post-?mortem',
  'rollback',
);

/** "Acme Corp is a ...": the subject before the copula, for entity descriptions. */
const DESCRIPTION = /^\s*(?:the\s+)?(.{1,80}?)\s+(?:is|are|was|were)\s+(?:a|an|the|our|their|its|one of)\b/i;
const ENTITY_REFERENCE_MAX_CHARS = 300;

/** Words that may precede an imperative: "Please review ...", "Just ship it". */
const IMPERATIVE_OPENERS = new Set(['please', 'kindly', 'just', 'always', 'never']);
/** What follows an imperative verb: an object or "to" ("Use tabs", "Remember to ..."). */
const OBJECT_TAGS = ['Determiner', 'Noun', 'Adjective', 'Pronoun', 'Value', 'Possessive'];

/**
 * A sentence opening with a bare verb and its object ("Rotate the keys", "Use tabs") whose
 * other verbs are bare too: "Release notes are in the wiki" and "Support tickets doubled" open
 * with a verb-looking noun but carry a finite verb later.
 */
function isImperative(terms: TaggedTerm[]): boolean {
  let i = 0;
  while (i < terms.length && IMPERATIVE_OPENERS.has(terms[i]?.text.toLowerCase() ?? '')) i += 1;
  const verb = terms[i];
  const next = terms[i + 1];
  if (!verb || !next || !verb.tags.has('Infinitive') || /[^\s]/.test(verb.post)) return false;
  if (!(next.text.toLowerCase() === 'to' || OBJECT_TAGS.some((t) => next.tags.has(t)))) return false;
  return terms
    .slice(i + 1)
    .every((t) => !(t.tags.has('Copula') || t.tags.has('PastTense') || (t.tags.has('PresentTense') && !t.tags.has('Infinitive'))));
}

function isEntityDescription(content: string, parsed: ParsedText): boolean {
  const trimmed = content.trim();
  if (trimmed.length > ENTITY_REFERENCE_MAX_CHARS) return false;
  const entities = extractEntities(trimmed).filter((e) => e.confidence >= 0.5 && e.type !== 'metric');
  if (entities.length === 0) return false;

  const subject = DESCRIPTION.exec(trimmed)?.[1];
  if (subject !== undefined) {
    const subjectKey = subject.toLowerCase();
    if (entities.some((e) => e.name.toLowerCase() === subjectKey)) return true;
    // Two or more capitalised words ("Satya Nadella") read as a name even when not recognised.
    if (/^\p{Lu}[\p{L}.'-]*(\s+\p{Lu}[\p{L}.'-]*)+$/u.test(subject)) return true;
  }
  // A short verbless note opening with a name: "Jane Doe, staff engineer at Stripe". Mid-sentence
  // "imperatives" are compromise mis-tagging nouns ("staff"), so they do not count as verbs.
  const words = trimmed.split(/\s+/).length;
  const lower = trimmed.toLowerCase();
  const opensWithEntity = entities.some((e) => lower.startsWith(e.name.toLowerCase()));
  const hasVerb = parsed.doc.match('#Verb').not('#Imperative').found || parsed.doc.has('^#Imperative');
  return opensWithEntity && words <= 12 && !hasVerb;
}

/**
 * Classifies memory content. Deterministic: lexical cues and compromise tags, read from the first
 * NLP_MAX_CHARS characters. The first rule that matches wins, in this order:
 *
 * 1. system      — prompts/instructions to the agent ("you are an assistant", "system prompt",
 *                  "always respond in ...", model settings).
 * 2. preference  — "prefers", "likes", "favorite", "always use", "doesn't like", ...
 * 3. insight     — explicit lessons: "learned", "realized", "turns out", "lesson", "root cause".
 * 4. task        — "TODO", "need to", "remember to", "make sure", "we should/must", "we will",
 *                  deadlines ("by Friday"), or a sentence opening with an imperative verb.
 * 5. event       — a date/time ("yesterday", "on March 3", "at 14:00") with a past-tense verb or
 *                  an event noun ("meeting", "outage", "release").
 * 6. insight     — reasoning connectives: "because", "therefore", "as a result".
 * 7. event       — an event noun with a past-tense verb but no date ("the outage hit EU users").
 * 8. entity_reference — short content describing a named entity ("Acme Corp is a logistics
 *                  company", "Satya Nadella is the CEO of Microsoft") or a verbless note on a name.
 * 9. fact        — everything else.
 */
export function classifyMemoryType(content: string): MemoryType {
  const input = nlpInput(content);
  const text = input.toLowerCase().replace(/[’‘]/g, "'");
  if (text.trim() === '') return 'fact';

  if (SYSTEM_CUES.test(text) || MODEL_SETTINGS.test(text) || STANDING_ORDER.test(text)) return 'system';
  if (PREFERENCE_CUES.test(text)) return 'preference';
  if (STRONG_INSIGHT_CUES.test(text)) return 'insight';

  const parsed = parseText(content);
  if (TASK_CUES.test(text) || parsed.sentences.some(isImperative)) return 'task';

  const hasPast = parsed.doc.has('#PastTense');
  const hasDate = parsed.doc.has('#Date') || DATE_CUES.test(text);
  const hasEventNoun = EVENT_NOUNS.test(text);
  if (hasDate && (hasPast || hasEventNoun)) return 'event';
  if (WEAK_INSIGHT_CUES.test(text)) return 'insight';
  if (hasEventNoun && hasPast) return 'event';
  if (isEntityDescription(content, parsed)) return 'entity_reference';
  return 'fact';
}
