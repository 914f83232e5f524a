/** Query strings of the admin API's pages (`{items, next_after}` with `limit` / `after`). */

/** One page of a list route. */
export interface Page<T> {
  items: T[];
  /** Pass as `after` for the next page; null on the last one. */
  next_after: string | null;
}

/**
 * `path?limit=..&after=..&<extra>` with empty values left out, so a first page has no `after`.
 * Values are encoded (a collection or topic name reaches the path through encodeURIComponent).
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
