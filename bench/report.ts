/** The one table a bench run prints: each figure beside the bare limit measured in the same run. */

export interface Row {
  config: string;
  figure: string;
  bare: string;
  service: string;
  ratio: string;
}

export const ms = (n: number) => `${n.toFixed(1)} ms`;
export const rate = (n: number) => `${n.toFixed(1)}/s`;
export const times = (n: number) => `${n.toFixed(2)}×`;

export class Table {
  readonly rows: Row[] = [];
  readonly notes: string[] = [];

  add(config: string, figure: string, bare: string, service: string, ratio = ''): void {
    this.rows.push({ config, figure, bare, service, ratio });
    // Progress as it is measured; the table itself prints at the end.
    console.error(`  [${config}] ${figure}: bare ${bare || '-'} | service ${service || '-'} | ${ratio}`);
  }

  note(text: string): void {
    this.notes.push(text);
    console.error(`  note: ${text}`);
  }

  /** Markdown, so docs/benchmarks.md can carry it as printed. */
  render(): string {
    const head: Row = { config: 'config', figure: 'figure', bare: 'bare limit (same run)', service: 'service', ratio: 'ratio' };
    const cols = ['config', 'figure', 'bare', 'service', 'ratio'] as const;
    const width = Object.fromEntries(cols.map((c) => [c, Math.max(...[head, ...this.rows].map((r) => r[c].length))])) as Record<(typeof cols)[number], number>;
    const line = (r: Row) => `| ${cols.map((c) => r[c].padEnd(width[c])).join(' | ')} |`;
    const sep = `|${cols.map((c) => '-'.repeat(width[c] + 2)).join('|')}|`;
    return [line(head), sep, ...this.rows.map(line), '', ...this.notes.map((n) => `- ${n}`)].join('\n');
  }
}
