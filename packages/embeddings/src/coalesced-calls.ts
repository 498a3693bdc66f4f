/**
 * Single texts that arrive while the model is busy wait for it and then go in one call together
 * (dynamic batching, as inference servers do). Concurrent searches then stop running the model
 * side by side, where each run's threads compete for the same cores and every one finishes late:
 * under load a query waits at most for the call in progress, and a call of a few short queries
 * costs little more than one. An idle model starts at once, so a lone request waits for nothing.
 */
export class CoalescedCalls<T> {
  private waiting: Array<{ text: string; resolve: (v: T) => void; reject: (err: unknown) => void }> = [];
  private busy = false;

  /** `run` gets at most `maxBatch` texts and answers in their order. */
  constructor(
    private readonly run: (texts: string[]) => Promise<T[]>,
    private readonly maxBatch = 16,
  ) {}

  call(text: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ text, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      try {
        const results = await this.run(batch.map((b) => b.text));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.busy = false;
  }
}
