/**
 * Polls until `check` holds: for conditions that become true asynchronously, in this process or
 * another (tests never sleep a fixed time). Throws naming `what` when `timeoutMs` runs out.
 * `intervalMs`: between checks; a cheap in-process check whose moment matters polls every 1 ms.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition', intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
