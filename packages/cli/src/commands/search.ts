import { Command, Option } from 'commander';
import { clientFor, print } from '../cli-context';

export function registerSearchCommand(program: Command): void {
  program
    .command('search <query>')
    .description('search memories')
    .addOption(new Option('--mode <mode>', 'search mode').choices(['semantic', 'keyword', 'hybrid']).default('hybrid'))
    .option('--agent <agent>', 'an agent id or name')
    .option('--limit <n>', 'results', '10')
    .action(async (query: string, o: { mode: 'semantic' | 'keyword' | 'hybrid'; agent?: string; limit: string }, cmd: Command) => {
      const results = await clientFor(cmd).memories.search({ query, search_mode: o.mode, limit: Number(o.limit), ...(o.agent ? { agent_id: o.agent } : {}) });
      print(cmd, results, (r) => r.data.map((d) => `${d.score.toFixed(3)}  ${d.memory.id}  ${d.memory.content.replace(/\s+/g, ' ').slice(0, 100)}`).join('\n') || 'no results');
    });
}
