/** A counting semaphore: how many units of work may be in flight at once. */
export class Slots {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  get available(): number {
    return this.free;
  }

  /** Takes up to `n` slots without waiting; returns how many it took. */
  takeUpTo(n: number): number {
    const taken = Math.min(n, this.free);
    this.free -= taken;
    return taken;
  }

  /** Waits for one slot. */
  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(n = 1): void {
    for (let i = 0; i < n; i++) {
      const next = this.waiters.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}
