import { SEARCH_MODES } from '@ams/vocabulary';
import { Command, Option } from 'commander';
import { clientFor, print } from '../cli-context';

interface SearchOptions {
  mode: 'semantic' | 'keyword' | 'hybrid';
  agent?: string;
  limit: string;
  asOf?: string;
  includeSuperseded?: boolean;
  recencyHalfLife?: string;
  explain?: boolean;
}

/** A number is Unix seconds; anything else goes as given (ISO 8601), for the API to judge. */
const instant = (v: string): number | string => (/^\d+(\.\d+)?$/.test(v) ? Number(v) : v);

type Factors = { vector: number | null; keyword: number | null; graph: number | null; recency: number | null; importance?: number };

/** `vector 0.81  keyword —  graph —  recency 0.50  importance 0.5`: each factor of score_breakdown. */
const factorLine = (f: Factors) =>
  (['vector', 'keyword', 'graph', 'recency', 'importance'] as const).map((k) => `${k} ${f[k] == null ? '—' : Number(f[k]).toFixed(3)}`).join('  ');

export function registerSearchCommand(program: Command): void {
  program
    .command('search <query>')
    .description('search memories')
    .addOption(new Option('--mode <mode>', 'search mode').choices(SEARCH_MODES).default('hybrid'))
    .option('--agent <agent>', 'an agent id or name')
    .option('--limit <n>', 'results', '10')
    .option('--as-of <time>', 'what was known to be true then: Unix seconds or ISO 8601')
    .option('--include-superseded', 'also memories that stopped being true (superseded)')
    .option('--recency-half-life <seconds>', 'weigh scores by recency: halved every this many seconds of age')
    .option('--explain', 'print each score factor (vector, keyword, graph, recency, importance)')
    .action(async (query: string, o: SearchOptions, cmd: Command) => {
      const results = await clientFor(cmd).memories.search({
        query,
        search_mode: o.mode,
        limit: Number(o.limit),
        ...(o.agent ? { agent_id: o.agent } : {}),
        ...(o.asOf ? { as_of: instant(o.asOf) } : {}),
        ...(o.includeSuperseded ? { include_superseded: true } : {}),
        ...(o.recencyHalfLife ? { recency_half_life: Number(o.recencyHalfLife) } : {}),
        ...(o.explain ? { debug: true } : {}),
      });
      print(
        cmd,
        results,
        (r) =>
          r.data
            .map((d) => {
              const line = `${d.score.toFixed(3)}  ${d.memory.id}  ${d.memory.content.replace(/\s+/g, ' ').slice(0, 100)}`;
              const factors = (d.score_breakdown as { factors?: Factors } | undefined)?.factors;
              return factors ? `${line}\n       ${factorLine(factors)}` : line;
            })
            .join('\n') || 'no results',
      );
    });
}
