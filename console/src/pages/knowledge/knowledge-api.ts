/**
 * Every server call of the knowledge pages (docs/knowledge.md), and their query keys. Calls use
 * the console's session cookie; failures throw ApiError with the catalogue code.
 */
import { withQuery, type Page } from '../ops-shared/page-query.ts';
import { jsonInit, requestJson } from '../ops-shared/request.ts';
import type {
  CollectionDetail,
  CollectionItem,
  IndexJob,
  IndexStarted,
  JobSummary,
  SearchResult,
  UploadResult,
} from './knowledge-types.ts';

/** Collections per page of the list. */
export const COLLECTIONS_PAGE = 50;

/** Hits asked for by the search box (the route allows 1 to 50, default 5). */
export const SEARCH_K = 10;

const base = (name: string) => `/v2/collections/${encodeURIComponent(name)}`;

export const knowledgeKeys = {
  collections: ['collections'] as const,
  collection: (name: string) => ['collections', name] as const,
  jobs: (name: string) => ['collections', name, 'jobs'] as const,
  job: (jobId: string) => ['index-jobs', jobId] as const,
  search: (name: string, q: string) => ['collections', name, 'search', q] as const,
};

export function listCollections(after?: string): Promise<Page<CollectionItem>> {
  return requestJson(withQuery('/v2/collections', { limit: COLLECTIONS_PAGE, after }));
}

export function getCollection(name: string): Promise<CollectionDetail> {
  return requestJson(base(name));
}

export function listJobs(name: string, after?: string): Promise<Page<JobSummary>> {
  return requestJson(withQuery(`${base(name)}/jobs`, { limit: 20, after }));
}

/**
 * Uploads documents (multipart, one part per file, named by its file name); all or none are
 * stored. `replace` overwrites files of the same name instead of refusing them (409).
 */
export function uploadFiles(name: string, files: File[], replace: boolean): Promise<UploadResult> {
  const form = new FormData();
  for (const file of files) form.append('file', file, file.name);
  return requestJson(withQuery(`${base(name)}/files`, { replace: replace ? 'true' : undefined }), {
    method: 'POST',
    body: form,
  });
}

/** Starts indexing every uploaded document of the collection. */
export function startIndexing(name: string): Promise<IndexStarted> {
  return requestJson(`${base(name)}/index`, jsonInit('POST', {}));
}

export function getIndexJob(jobId: string): Promise<IndexJob> {
  return requestJson(`/v2/index-jobs/${encodeURIComponent(jobId)}`);
}

export function searchCollection(name: string, q: string, k = SEARCH_K): Promise<SearchResult> {
  return requestJson(withQuery(`${base(name)}/search`, { q, k }));
}
