/** True once every promise has settled; false if `ms` runs out first (an infinite `ms` waits). */
export async function allSettledWithin(promises: Array<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = Number.isFinite(ms) ? [new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))] : [];
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true), ...timeout]);
  } finally {
    clearTimeout(timer);
  }
}
