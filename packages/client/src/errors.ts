/** The API's error envelope as an exception: branch on `type` (stable), show `message`, quote `requestId`. */
export class AmsError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'AmsError';
  }

  /** The HTTP status, as the envelope's `code` carries it. */
  get code(): number {
    return this.status;
  }

  static fromResponse(status: number, body: unknown): AmsError {
    const e = (body ?? {}) as { type?: string; message?: string; request_id?: string; details?: AmsError['details'] };
    return new AmsError(status, e.type ?? 'unknown_error', e.message ?? `HTTP ${status}`, e.request_id, e.details ?? []);
  }
}
