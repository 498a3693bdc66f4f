/**
 * bench:load's light tenant in a process of its own: a tenant's agent runs on its own machine, not
 * in the event loop of the flooding tenant's 16 clients, whose answers would delay its sends and
 * reads. Reads { target, key, rate, seconds, queries } as JSON on stdin, says `ready` on stdout's
 * first line as it starts sending the searches evenly (openLoop), then writes the Run as JSON.
 */
import { openLoop, UnseenQueries, type Target } from './load-loops';

interface Order {
  target: Target;
  key: string;
  rate: number;
  seconds: number;
  queries: string[];
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const order = JSON.parse(input) as Order;
  process.stdout.write('ready\n');
  const run = await openLoop(order.target, new UnseenQueries(order.queries), order.rate, order.seconds, { key: order.key });
  process.stdout.write(JSON.stringify({ ...run, other: [...run.other] }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
