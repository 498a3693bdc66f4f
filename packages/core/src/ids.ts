const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `s` is a UUID (any case): ids in paths and bodies, as opposed to names and slugs. */
export const isUuid = (s: string): boolean => UUID.test(s);
