/**
 * bench:load's light tenant in a process of its own: a tenant's agent runs on its own machine, not
 * in the event loop of the flooding tenant's 16 clients, whose answers would delay its sends and
 * reads. Reads { target, key, rate, seconds, queries, delayMs } as JSON on stdin, opens its
 * connection, says `ready` on stdout's first line, and `delayMs` later starts sending the searches
 * evenly (openLoop); then writes the Run as JSON.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { openLoop, UnseenQueries, warmConnection, type Target } from './load-loops';

interface Order {
  target: Target;
  key: string;
  rate: number;
  seconds: number;
  queries: string[];
  delayMs: number;
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const order = JSON.parse(input) as Order;
  const agent = new http.Agent({ keepAlive: true });
  await warmConnection(order.target, agent);
  process.stdout.write('ready\n');
  await sleep(order.delayMs);
  const run = await openLoop(order.target, new UnseenQueries(order.queries), order.rate, order.seconds, { key: order.key, agent });
  agent.destroy();
  process.stdout.write(JSON.stringify({ ...run, other: [...run.other] }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
