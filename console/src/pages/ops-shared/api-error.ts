/**
 * Errors of the admin API as the console shows them: the catalogue's stable code
 * (`BW_ERR_*`) and its message, from the `{"error": {"code", "message", "details"?}}` body.
 */

/** A refused or failed admin call. */
export class ApiError extends Error {
  /** The HTTP status (0 when the server could not be reached). */
  readonly status: number;
  /** The catalogue code, e.g. `BW_ERR_DOCUMENT_TOO_LARGE`; `BW_ERR_HTTP_<status>` without one. */
  readonly code: string;
  /** The error's `details` as sent (e.g. `problems`), when any. */
  readonly details: unknown;

  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error a non-2xx answer stands for. A body that is not the catalogue's shape (a proxy's HTML
 * page, an empty 502) still gives an error that names the status, so nothing fails silently.
 */
export function apiErrorOf(status: number, bodyText: string): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const error = isRecord(parsed) ? parsed.error : undefined;
  if (isRecord(error) && typeof error.code === 'string') {
    const message = typeof error.message === 'string' ? error.message : error.code;
    return new ApiError(status, error.code, message, error.details);
  }
  return new ApiError(status, `BW_ERR_HTTP_${status}`, `the server answered HTTP ${status}`);
}

/** What a failed call is called on screen: its code and message, or the thrown value's text. */
export function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'BW_ERR_NETWORK', message: error.message };
  return { code: 'BW_ERR_NETWORK', message: String(error) };
}
