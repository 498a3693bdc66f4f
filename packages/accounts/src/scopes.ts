import type { Scope } from '@ams/vocabulary';

export { SCOPES, type Scope } from '@ams/vocabulary';

/** `admin` implies every other scope. */
export const hasScope = (granted: readonly string[], required: Scope): boolean =>
  granted.includes('admin') || granted.includes(required);
