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
  /** In one object, so views made with Object.create (a request's, see services/api memory-deps) share it. */
  private readonly following: { last: number; reading?: Promise<void> } = { last: 0 };

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
    const f = this.following;
    if (!f.reading && this.catchUp && Date.now() - f.last >= 250) {
      f.last = Date.now();
      f.reading = this.catchUp().finally(() => (f.reading = undefined));
    }
    await f.reading?.catch(() => undefined);
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
