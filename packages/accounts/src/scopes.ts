export const SCOPES = ['read', 'write', 'delete', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** `admin` implies every other scope. */
export const hasScope = (granted: readonly string[], required: Scope): boolean =>
  granted.includes('admin') || granted.includes(required);
