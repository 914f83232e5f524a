/**
 * Every server call of the knowledge pages (docs/knowledge.md), and their query keys. Calls go
 * through the console's one client (api/client.ts); failures throw ApiError with the catalogue code.
 */
import { api, unwrap } from '../../api/client.ts';
import type {
  CollectionDetail,
  CollectionPage,
  IndexJob,
  IndexStarted,
  JobPage,
  CollectionSettings,
  SearchMode,
  SearchResult,
  UnansweredPage,
  UploadResult,
} from '../../api/types.ts';

/** Collections per page of the list. */
export const COLLECTIONS_PAGE = 50;

/** Hits asked for by the search box (the route allows 1 to 50, default 5). */
export const SEARCH_K = 10;

export const knowledgeKeys = {
  collections: ['collections'] as const,
  collection: (name: string) => ['collections', name] as const,
  jobs: (name: string) => ['collections', name, 'jobs'] as const,
  job: (jobId: string) => ['index-jobs', jobId] as const,
  search: (name: string, q: string, mode: SearchMode | 'auto') =>
    ['collections', name, 'search', q, mode] as const,
  unanswered: (name: string) => ['collections', name, 'unanswered'] as const,
};

export async function listCollections(after?: string): Promise<CollectionPage> {
  return unwrap(
    await api.GET('/v2/collections', { params: { query: { limit: COLLECTIONS_PAGE, after } } }),
  );
}

export async function getCollection(name: string): Promise<CollectionDetail> {
  return unwrap(await api.GET('/v2/collections/{name}', { params: { path: { name } } }));
}

export async function listJobs(name: string, after?: string): Promise<JobPage> {
  return unwrap(
    await api.GET('/v2/collections/{name}/jobs', {
      params: { path: { name }, query: { limit: 20, after } },
    }),
  );
}

/**
 * Uploads documents (multipart, one part per file, named by its file name); all or none are
 * stored. `replace` overwrites files of the same name instead of refusing them (409).
 */
export async function uploadFiles(
  name: string,
  files: File[],
  replace: boolean,
): Promise<UploadResult> {
  const form = new FormData();
  for (const file of files) form.append('file', file, file.name);
  return unwrap(
    await api.POST('/v2/collections/{name}/files', {
      params: { path: { name }, query: { replace: replace ? 'true' : undefined } },
      // openapi-typescript types binary parts as strings; what is sent is the form built here.
      body: {},
      bodySerializer: () => form,
    }),
  );
}

/** Starts indexing every uploaded document of the collection. */
export async function startIndexing(name: string): Promise<IndexStarted> {
  return unwrap(
    await api.POST('/v2/collections/{name}/index', { params: { path: { name } }, body: {} }),
  );
}

export async function getIndexJob(jobId: string): Promise<IndexJob> {
  return unwrap(await api.GET('/v2/index-jobs/{job_id}', { params: { path: { job_id: jobId } } }));
}

/** Searches by `mode`; `auto` lets the collection decide (hybrid with vectors, else words). */
export async function searchCollection(
  name: string,
  q: string,
  mode: SearchMode | 'auto',
  k = SEARCH_K,
): Promise<SearchResult> {
  return unwrap(
    await api.GET('/v2/collections/{name}/search', {
      params: { path: { name }, query: { q, k, ...(mode === 'auto' ? {} : { mode }) } },
    }),
  );
}

/** The knowledge gaps: questions no passage answered well enough, newest first. */
export async function listUnanswered(name: string, after?: string): Promise<UnansweredPage> {
  return unwrap(
    await api.GET('/v2/collections/{name}/unanswered', {
      params: { path: { name }, query: { limit: 50, after } },
    }),
  );
}

/** Sets the collection's embedding model (a change re-indexes it) and relevance threshold. */
export async function saveSearchSettings(
  name: string,
  settings: { embedding_model: 'local' | 'api' | 'none' | null; min_similarity: number | null },
): Promise<CollectionSettings> {
  return unwrap(
    await api.PATCH('/v2/collections/{name}', { params: { path: { name } }, body: settings }),
  );
}
