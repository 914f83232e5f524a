/**
 * Reads a query again with a request sent now, for a live event that says its data changed.
 * `invalidateQueries` alone is not that: while a query's first read is in flight (it has no data
 * yet), TanStack Query joins that read instead of sending another, and that read may have left
 * before the change the event announces. The page would then keep the older answer, with nothing
 * to ask again (a test chat's state line stayed on "none" after its reply). Cancelling first ends
 * any read in flight, so the read that follows starts after the event.
 */

/** The part of TanStack Query's `QueryClient` used (plain TypeScript: no React types here). */
export interface Queries {
  cancelQueries(filters: { queryKey: readonly unknown[] }): Promise<void>;
  invalidateQueries(filters: { queryKey: readonly unknown[] }): Promise<void>;
}

export async function readAgain(client: Queries, queryKey: readonly unknown[]): Promise<void> {
  await client.cancelQueries({ queryKey });
  await client.invalidateQueries({ queryKey });
}
