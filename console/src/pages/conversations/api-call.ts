/**
 * One JSON call to the admin API with the console's session cookie, shared by the conversations
 * and test chat pages. A refusal comes back as `ApiError` with the catalogue code (`BW_ERR_*`), or
 * `BW_ERR_NETWORK` when the server could not be reached, so a page can show both the same way.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string };
}

/**
 * Calls `path` (same origin) and returns its JSON body; a 204 resolves to undefined.
 * @param headers extra headers, e.g. a web visitor's `Authorization`.
 */
export async function callJson<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (cause) {
    throw new ApiError(0, 'BW_ERR_NETWORK', `the server could not be reached (${String(cause)})`);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = (parsed as ErrorBody | undefined)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `HTTP_${response.status}`,
      error?.message ?? `the server answered HTTP ${response.status}`,
    );
  }
  if (parsed === undefined) {
    throw new ApiError(response.status, 'BW_ERR_NOT_JSON', 'the server answered without JSON');
  }
  return parsed as T;
}

/** How a failed call reads in an alert: its code first, as the operator would search for it. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
