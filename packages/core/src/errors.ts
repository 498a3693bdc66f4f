/** Stable error codes; the HTTP status of each is decided here and nowhere else. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  authorization_error: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  request_header_too_large: 431,
  validation_error: 422,
  rate_limit_exceeded: 429,
  quota_exceeded: 403,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorType = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

/** An error meant for the client: its type, message and details reach the response as they are. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly type: ErrorType,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[type];
  }

  static badRequest(message: string): ApiError {
    return new ApiError('bad_request', message);
  }
  static unauthorized(message = 'Missing or invalid API key'): ApiError {
    return new ApiError('unauthorized', message);
  }
  static forbidden(message: string): ApiError {
    return new ApiError('authorization_error', message);
  }
  static notFound(resource: string): ApiError {
    return new ApiError('not_found', `${resource} not found`);
  }
  static conflict(message: string): ApiError {
    return new ApiError('conflict', message);
  }
  static validation(details: ErrorDetail[]): ApiError {
    return new ApiError('validation_error', 'Request validation failed', details);
  }
  /** A single-field validation failure found after the schema passed (e.g. an unknown agent name). */
  static invalidField(field: string, message: string): ApiError {
    return ApiError.validation([{ field, message }]);
  }
}

export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;
