// The root package.json is the one place the service version is set.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const VERSION: string = require('../../../package.json').version;
