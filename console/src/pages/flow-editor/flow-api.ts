/**
 * Every server call of the flow editor (contract: docs "Flow versions" routes of the admin API),
 * through `fetch` with the console's session cookie. Errors come back as `ApiError` carrying the
 * catalogue code (`BW_ERR_*`), or `BW_ERR_NETWORK` when the server could not be reached.
 */
import type { Flow, Problem } from './flow-types.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface PublishedFlow {
  version: number;
  flow: Flow;
  author: string;
  created_at: string;
  note: string | null;
}

export interface DraftFlow {
  flow: unknown;
  author: string;
  updated_at: string;
  problems: Problem[];
  warnings: Problem[];
}

export interface BotFlow {
  published: PublishedFlow;
  draft: DraftFlow | null;
}

export interface Validation {
  ok: boolean;
  problems: Problem[];
  warnings: Problem[];
}

export interface VersionSummary {
  version: number;
  author: string;
  created_at: string;
  note: string | null;
  current: boolean;
  changes: { added: string[]; removed: string[]; changed: string[] };
}

export interface VersionDetail extends PublishedFlow {
  current: boolean;
}

export interface Page<T> {
  items: T[];
  next_after: string | null;
}

export interface Impact {
  removed_states: { state: string; conversations: number }[];
  conversations: number;
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: unknown };
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (cause) {
    throw new ApiError(0, 'BW_ERR_NETWORK', 'the server could not be reached', cause);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok || json === undefined) {
    const error = (json as ErrorBody | undefined)?.error;
    throw new ApiError(
      response.status,
      error?.code ?? 'BW_ERR_HTTP',
      error?.message ?? `the server answered HTTP ${response.status}`,
      error?.details,
    );
  }
  return json as T;
}

const bot = (appId: string): string => `/v2/bots/${encodeURIComponent(appId)}`;

/** `GET /v2/bots/:app_id/flow`: the published version and the draft (or null). */
export function getBotFlow(appId: string): Promise<BotFlow> {
  return call('GET', `${bot(appId)}/flow`);
}

/** `POST /v2/flows/validate`: problems and warnings of any JSON (an invalid flow is no error). */
export function validateFlow(flow: unknown): Promise<Validation> {
  return call('POST', '/v2/flows/validate', flow);
}

/** `PUT /v2/bots/:app_id/flow/draft`: saved even when invalid. */
export function saveDraft(appId: string, flow: unknown): Promise<DraftFlow> {
  return call('PUT', `${bot(appId)}/flow/draft`, { flow });
}

/** `DELETE /v2/bots/:app_id/flow/draft`. */
export function discardDraft(appId: string): Promise<void> {
  return call('DELETE', `${bot(appId)}/flow/draft`);
}

/** `POST /v2/bots/:app_id/flow/publish`: the draft becomes the next version. */
export function publishDraft(appId: string, note?: string): Promise<PublishedFlow> {
  return call('POST', `${bot(appId)}/flow/publish`, note ? { note } : {});
}

/** `GET /v2/bots/:app_id/flow/versions`: newest first, `limit` per page. */
export function listVersions(
  appId: string,
  after?: string,
  limit = 20,
): Promise<Page<VersionSummary>> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (after !== undefined) query.set('after', after);
  return call('GET', `${bot(appId)}/flow/versions?${query.toString()}`);
}

/** `GET /v2/bots/:app_id/flow/versions/:version`. */
export function getVersion(appId: string, version: number): Promise<VersionDetail> {
  return call('GET', `${bot(appId)}/flow/versions/${version}`);
}

/** `POST /v2/bots/:app_id/flow/versions/:version/publish`: rollback to that version. */
export function republishVersion(appId: string, version: number): Promise<VersionDetail> {
  return call('POST', `${bot(appId)}/flow/versions/${version}/publish`);
}

/** `GET /v2/bots/:app_id/flow/impact`: conversations waiting in states the candidate removes. */
export function getImpact(appId: string, version: number | 'draft'): Promise<Impact> {
  return call('GET', `${bot(appId)}/flow/impact?version=${version}`);
}
