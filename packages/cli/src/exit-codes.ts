/** Exit codes scripts can rely on (the README's "The command line" lists them; the CLI tests check each). */
export const EXIT = {
  ok: 0,
  /** The API answered with an error (its message, type and request id on stderr). */
  apiError: 1,
  /** Bad usage: an unknown option or command, a missing key, a file that cannot be read or written. */
  usage: 2,
  /** The server cannot be reached, or does not answer within the timeouts (--connect-timeout, --timeout). */
  unreachable: 3,
  /** An import finished but some of its lines failed (the others were stored). */
  partial: 4,
} as const;
