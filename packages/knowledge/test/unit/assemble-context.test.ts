import { assembleContext, formatMemoryLine } from '../../src';

const at = (day: string) => Date.parse(`${day}T12:00:00Z`) / 1000;
const memory = (content: string, day = '2026-11-20') => ({ content, memory_type: 'fact', importance: 0.5, created_at: at(day) });

/** The prompt-ready block POST /v1/context returns: ranking order, within a character budget. */
describe('assembleContext', () => {
  it('writes one line per memory: its number, type, importance and date, then the content on one line', () => {
    expect(formatMemoryLine(memory('uses  Kafka\nfor events'), 2)).toBe('2. [fact | importance 0.50 | 2026-11-20] uses Kafka for events');
  });

  it('without a budget, every memory under the header', () => {
    const { context, used } = assembleContext([memory('one'), memory('two')], undefined);
    expect(used).toBe(2);
    expect(context).toBe('Relevant memories:\n1. [fact | importance 0.50 | 2026-11-20] one\n2. [fact | importance 0.50 | 2026-11-20] two');
  });

  it('cuts the first memory that does not fit at a word boundary and stops there, never past the budget', () => {
    const memories = [memory('alpha beta'), memory('gamma delta epsilon zeta'), memory('never reached')];
    const full = assembleContext(memories, undefined).context;
    for (let budget = 20; budget < full.length; budget++) {
      const { context, used } = assembleContext(memories, budget);
      expect(context.length).toBeLessThanOrEqual(budget);
      if (used > 0) expect(full.startsWith(context)).toBe(true);
    }
    const cut = assembleContext(memories, full.indexOf('gamma') + 'gamma del'.length);
    expect(cut).toEqual({ context: full.slice(0, full.indexOf('gamma') + 'gamma'.length), used: 2 });
  });

  it('nothing fits: an empty context, not a bare header', () => {
    expect(assembleContext([memory('anything')], 10)).toEqual({ context: '', used: 0 });
    expect(assembleContext([], 100)).toEqual({ context: '', used: 0 });
  });
});
