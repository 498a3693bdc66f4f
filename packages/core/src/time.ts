/** Memory objects carry Unix seconds; every other resource carries ISO 8601 UTC strings. */
export const toUnixSeconds = (d: Date | string | null | undefined): number | null =>
  d == null ? null : Math.floor(new Date(d).getTime() / 1000);

export const toIso = (d: Date | string | null | undefined): string | null =>
  d == null ? null : new Date(d).toISOString();
