/**
 * Errors of the admin API as every console page shows them: the catalogue's stable code
 * (`BW_ERR_*`), its message and details from the `{"error": {"code", "message", "details"?}}`
 * body, `BW_ERR_HTTP_<status>` for an answer without that shape (a proxy's page, an empty 502),
 * `BW_ERR_NETWORK` when the server could not be reached.
 */

/** A refused or failed admin API call. */
export class ApiError extends Error {
  /** The HTTP status (0 when the server could not be reached). */
  readonly status: number;
  /** The catalogue code, e.g. `BW_ERR_DOCUMENT_TOO_LARGE`. */
  readonly code: string;
  /** The error's `details` as sent (e.g. `problems`), when any. */
  readonly details: Record<string, unknown> | undefined;
  /** Seconds to wait before trying again (Retry-After), when the server said. */
  readonly retryAfterS: number | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { details?: Record<string, unknown>; retryAfterS?: number } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = extra.details;
    this.retryAfterS = extra.retryAfterS;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error a non-2xx answer stands for.
 * @param body the answer's body, parsed when it was JSON, else its text
 * @param retryAfter the Retry-After header (seconds), when sent
 */
export function apiErrorOf(status: number, body: unknown, retryAfter?: string | null): ApiError {
  const seconds = Number(retryAfter ?? undefined);
  const retryAfterS = Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.code === 'string') {
    const message = typeof error.message === 'string' ? error.message : error.code;
    const details = isRecord(error.details) ? error.details : undefined;
    return new ApiError(status, error.code, message, { details, retryAfterS });
  }
  return new ApiError(status, `BW_ERR_HTTP_${status}`, `the server answered HTTP ${status}`, {
    retryAfterS,
  });
}

/**
 * The body paths a `BW_ERR_SCHEMA` refusal names (`/handoff/timeout_s`), for forms that explain
 * each problem at its field; empty for any other error.
 */
export function problemPaths(error: unknown): Set<string> {
  if (!(error instanceof ApiError) || error.code !== 'BW_ERR_SCHEMA') return new Set();
  const problems = Array.isArray(error.details?.problems) ? error.details.problems : [];
  return new Set(
    problems
      .map((p) => (p as { path?: unknown }).path)
      .filter((p): p is string => typeof p === 'string'),
  );
}

/** The error of a request that never got an answer. */
export function networkError(cause: unknown): ApiError {
  return new ApiError(0, 'BW_ERR_NETWORK', `the server could not be reached (${String(cause)})`);
}

/** What a failed call is called on screen: its code and message, or the thrown value's text. */
export function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof ApiError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'BW_ERR_NETWORK', message: error.message };
  return { code: 'BW_ERR_NETWORK', message: String(error) };
}

/** A failed call as one line of text: its code first, as the operator would search for it. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Whether a failure means "not signed in" (the console then goes to the sign-in page). */
export function isSignedOut(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}
