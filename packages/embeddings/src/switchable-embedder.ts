import type { Embedder } from './embedder';
import { embedQuery, type QueryEmbedder } from './query-cache';

/**
 * The process's embedder for the store's active model, which a re-embed run may change while the
 * process runs: everything reads `model`/`dimensions` and embeds through this one object, and
 * switchTo moves them all at once. A call that straddles a switch is made again with the new model,
 * so vectors returned are always of the model `model` names when they return.
 */
export class SwitchableEmbedder implements QueryEmbedder {
  private current: Embedder;
  private catchUp?: () => Promise<void>;
  private catchingUp?: Promise<void>;
  private lastCatchUp = 0;

  constructor(initial: Embedder) {
    this.current = initial;
  }

  get active(): Embedder {
    return this.current;
  }
  get provider() {
    return this.current.provider;
  }
  get model() {
    return this.current.model;
  }
  get dimensions() {
    return this.current.dimensions;
  }
  get fallbackReason() {
    return this.current.fallbackReason;
  }

  switchTo(next: Embedder): void {
    this.current = next;
  }

  /** How this process re-reads the active model (set by whoever follows it). */
  followWith(catchUp: () => Promise<void>): void {
    this.catchUp = catchUp;
  }

  /**
   * Re-reads the active model now (at most every 250 ms, concurrent callers share one read):
   * a search that found nothing may have raced a switch another process made. True when the model changed.
   */
  async refresh(): Promise<boolean> {
    const before = this.current;
    if (!this.catchingUp && this.catchUp && Date.now() - this.lastCatchUp >= 250) {
      this.lastCatchUp = Date.now();
      this.catchingUp = this.catchUp().finally(() => (this.catchingUp = undefined));
    }
    await this.catchingUp?.catch(() => undefined);
    return this.current !== before;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    for (;;) {
      const used = this.current;
      const vectors = await used.embed(texts);
      if (used === this.current) return vectors;
    }
  }

  async embedQuery(text: string): Promise<Float32Array> {
    for (;;) {
      const used = this.current;
      const vector = await embedQuery(used, text);
      if (used === this.current) return vector;
    }
  }
}
