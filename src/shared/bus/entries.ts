/** Decoding stream replies as ioredis hands them back under RESP2 and RESP3. */

/** One stream entry: its id and its `data` field (null when absent or trimmed away). */
export interface Entry {
  id: string;
  data: string | null;
}

/** Entries of an XRANGE-style list `[[id, [field, value, ...]], ...]`. */
export function parseEntries(raw: unknown): Entry[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((item: unknown) => {
    const [id, fields] = item as [string, unknown];
    let data: string | null = null;
    if (Array.isArray(fields)) {
      for (let i = 0; i + 1 < fields.length; i += 2) {
        if (String(fields[i]) === 'data') data = String(fields[i + 1]);
      }
    }
    return { id: String(id), data };
  });
}

/**
 * The per-stream entry lists of an XREAD/XREADGROUP reply. RESP2 gives `[[key, entries], ...]`;
 * under RESP3 (the ioredis 6 default) `call()` hands back the map flattened: `[key, entries, ...]`.
 */
export function entriesByStream(reply: unknown): Map<string, unknown> {
  const byStream = new Map<string, unknown>();
  if (!Array.isArray(reply)) return byStream;
  if (reply.length > 0 && Array.isArray(reply[0])) {
    for (const pair of reply as [unknown, unknown][]) byStream.set(String(pair[0]), pair[1]);
  } else {
    for (let i = 0; i + 1 < reply.length; i += 2) byStream.set(String(reply[i]), reply[i + 1]);
  }
  return byStream;
}
