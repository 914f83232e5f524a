/**
 * What the knowledge routes answer (docs/knowledge.md; `GET /v2/collections` and
 * `GET /v2/collections/:name/jobs` as in the operations contract).
 */

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'partial' | 'failed' | 'superseded';

/** A collection in the list. */
export interface CollectionItem {
  name: string;
  /** The bot whose flows may answer from it; null for a shared (or not yet owned) one. */
  owner_app_id: string | null;
  shared?: boolean;
  /** Files and chunks of the indexed content. */
  files: number;
  chunks: number;
  /** Documents uploaded (indexed or not). */
  uploaded_files?: number;
  updated_at: string | null;
  last_job: { job_id: string; status: JobStatus } | null;
}

/** `GET /v2/collections/:name`. */
export interface CollectionDetail {
  collection: string;
  owner_app_id: string | null;
  shared: boolean;
  uploaded_files: string[];
  indexed: { language: string; files: number; chunks: number; at: string | null } | null;
  last_job: { job_id: string; status: JobStatus } | null;
}

/** `POST /v2/collections/:name/files` (201). */
export interface UploadResult {
  collection: string;
  files: { name: string; bytes: number; sha256: string }[];
}

/** `POST /v2/collections/:name/index` (202). */
export interface IndexStarted {
  job_id: string;
  collection: string;
  files: string[];
  status: JobStatus;
}

/** One file of a job: pending, indexed (with its counts) or failed (with the reason). */
export interface FileOutcome {
  name: string;
  status: 'pending' | 'indexed' | 'failed';
  chunks?: number;
  pages?: number;
  sheets?: number;
  rows?: number;
  error?: { code: string; reason?: string; message: string };
  /** Chunks of the previous content kept for a failed file. */
  kept_chunks?: number;
}

/** `GET /v2/index-jobs/:id`. */
export interface IndexJob {
  job_id: string;
  collection: string;
  status: JobStatus;
  progress: { files_total: number; files_done: number; chunks_done: number };
  files: FileOutcome[];
  error?: string;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** An item of `GET /v2/collections/:name/jobs`: the job as far as the list shows it. */
export interface JobSummary {
  job_id: string;
  status: JobStatus;
  files_total?: number;
  files_done?: number;
  files_failed?: number;
  created_at?: string;
  finished_at?: string | null;
}

export type HitSource =
  { file: string; page: number } | { file: string; sheet: string; rows: [number, number] };

export interface SearchHit {
  chunk_id: string;
  score: number;
  source: HitSource;
  text: string;
  /** Best fragments, matched words between `<mark>` and `</mark>` (not HTML: shown as text). */
  snippet: string;
}

/** `GET /v2/collections/:name/search`. */
export interface SearchResult {
  collection: string;
  language: string;
  query: string;
  k: number;
  hits: SearchHit[];
}

/** The `index-job` live event (docs/events.md). */
export interface IndexJobEvent {
  job_id: string;
  collection: string;
  status: JobStatus;
  files_total: number;
  files_done: number;
  files_failed: number;
}
