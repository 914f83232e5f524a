/**
 * The one way the knowledge and operations pages call the admin API: `fetch` with the console's
 * session cookie (same origin), errors turned into {@link ApiError}.
 */
import { ApiError, apiErrorOf } from './api-error.ts';

/** Sends a request and returns the parsed JSON body (undefined for 204); throws ApiError. */
export async function requestJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin', ...init });
  } catch (error) {
    throw new ApiError(0, 'BW_ERR_NETWORK', `the server could not be reached (${String(error)})`);
  }
  const text = await response.text();
  if (!response.ok) throw apiErrorOf(response.status, text);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** A JSON body for POST/PUT/PATCH. */
export function jsonInit(method: string, body: unknown): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
