/**
 * Work in flight (embedding batches, webhook attempts, re-tiering moves) gets this long to finish
 * when a process stops; claims still held then are handed back for another process.
 */
export const DRAIN_MS = 8_000;

/** How long a stopping process may take in all (requests, then the drain, then connections) before it exits 1. */
export const SHUTDOWN_GRACE_MS = DRAIN_MS + 5_000;
