/** The button under a paged list: shown while there is a next page, "Loading…" while it comes. */
interface PagedQuery {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

export function LoadMore({ query, label }: { query: PagedQuery; label: string }) {
  if (!query.hasNextPage) return null;
  return (
    <button
      type="button"
      onClick={() => void query.fetchNextPage()}
      disabled={query.isFetchingNextPage}
    >
      {query.isFetchingNextPage ? 'Loading…' : label}
    </button>
  );
}
