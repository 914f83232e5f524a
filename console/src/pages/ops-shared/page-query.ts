/** Query strings of URLs the console builds itself (EventSource URLs; requests go through api/). */

/**
 * `path?key=value&..` with empty values left out, values encoded.
 */
export function withQuery(
  path: string,
  params: Record<string, string | number | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
