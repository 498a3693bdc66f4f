import type { ExportRecord } from './export.service';

/** Text that cannot open a Markdown heading or fence of its own. */
const quoteBlock = (text: string) =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

/** The document's start: what it is and which filters made it. */
export function markdownHeader(header: ExportRecord): string {
  const filters = Object.entries((header.filters ?? {}) as Record<string, unknown>)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k} ${String(v)}`);
  return [
    '# Memories',
    '',
    `Exported ${String(header.exported_at)}${filters.length ? ` (${filters.join(', ')})` : ''}, oldest first.`,
    '',
  ].join('\n');
}

/** One memory for people to read: when, which agent, what kind, then the text and its metadata. */
export function markdownMemory(m: ExportRecord): string {
  const meta = (m.metadata ?? {}) as Record<string, unknown>;
  const facts = [
    `importance ${String(m.importance)}`,
    `tier ${String(m.tier)}`,
    ...(m.visibility === 'confidential' ? ['confidential'] : []),
    ...(m.archived ? ['archived'] : []),
  ];
  const lines = [`## ${String(m.created_at).slice(0, 19).replace('T', ' ')} · ${String(m.agent)} · ${String(m.memory_type)}`, '', quoteBlock(String(m.content)), '', `*${facts.join(' · ')}* — \`${String(m.id)}\``];
  const keys = Object.keys(meta);
  if (keys.length) {
    lines.push('');
    for (const k of keys) lines.push(`- **${k}**: ${JSON.stringify(meta[k])}`);
  }
  lines.push('', '');
  return lines.join('\n');
}
