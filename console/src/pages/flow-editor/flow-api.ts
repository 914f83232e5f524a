/**
 * Every server call of the flow editor (the flow version routes of the admin API, docs/flows.md
 * "Versions"), through the console's one client (api/client.ts). Failures throw ApiError with
 * the catalogue code (`BW_ERR_*`).
 */
import { api, unwrap } from '../../api/client.ts';
import type {
  BotFlow,
  DraftFlow,
  Impact,
  Published,
  Validation,
  VersionDetail,
  VersionSummary,
} from '../../api/types.ts';

const bot = (appId: string) => ({ path: { app_id: appId } });

/** `GET /v2/bots/:app_id/flow`: the published version and the draft (or null). */
export async function getBotFlow(appId: string): Promise<BotFlow> {
  return unwrap(await api.GET('/v2/bots/{app_id}/flow', { params: bot(appId) }));
}

/** `POST /v2/flows/validate`: problems and warnings of any JSON (an invalid flow is no error). */
export async function validateFlow(flow: unknown): Promise<Validation> {
  return unwrap(await api.POST('/v2/flows/validate', { body: flow }));
}

/** `GET /v2/bots/:app_id/flow/llm-usage`: the bot's llm tokens today and its daily budget. */
export async function getLlmUsage(appId: string) {
  return unwrap(await api.GET('/v2/bots/{app_id}/flow/llm-usage', { params: bot(appId) }));
}

/** `PUT /v2/bots/:app_id/flow/draft`: saved even when invalid. */
export async function saveDraft(appId: string, flow: unknown): Promise<DraftFlow> {
  return unwrap(
    await api.PUT('/v2/bots/{app_id}/flow/draft', {
      params: bot(appId),
      // The draft is whatever the editor holds; the server refuses (400) what is not an object.
      body: { flow: flow as Record<string, unknown> },
    }),
  );
}

/** `DELETE /v2/bots/:app_id/flow/draft`. */
export async function discardDraft(appId: string): Promise<void> {
  unwrap(await api.DELETE('/v2/bots/{app_id}/flow/draft', { params: bot(appId) }));
}

/** `POST /v2/bots/:app_id/flow/publish`: the draft becomes the next version. */
/** Publishes the draft; `overrideTests` (owners) publishes over failing conversation tests. */
export async function publishDraft(
  appId: string,
  note?: string,
  overrideTests = false,
): Promise<Published> {
  return unwrap(
    await api.POST('/v2/bots/{app_id}/flow/publish', {
      params: bot(appId),
      body: { ...(note ? { note } : {}), ...(overrideTests ? { override_tests: true } : {}) },
    }),
  );
}

/** `GET /v2/bots/:app_id/flow/versions`: newest first, `limit` per page. */
export async function listVersions(
  appId: string,
  after?: string,
  limit = 20,
): Promise<{ items: VersionSummary[]; next_after: string | null }> {
  return unwrap(
    await api.GET('/v2/bots/{app_id}/flow/versions', {
      params: { ...bot(appId), query: { limit, after } },
    }),
  );
}

/** `GET /v2/bots/:app_id/flow/versions/:version`. */
export async function getVersion(appId: string, version: number): Promise<VersionDetail> {
  return unwrap(
    await api.GET('/v2/bots/{app_id}/flow/versions/{version}', {
      params: { path: { app_id: appId, version } },
    }),
  );
}

/** `POST /v2/bots/:app_id/flow/versions/:version/publish`: rollback to that version. */
export async function republishVersion(appId: string, version: number): Promise<VersionDetail> {
  return unwrap(
    await api.POST('/v2/bots/{app_id}/flow/versions/{version}/publish', {
      params: { path: { app_id: appId, version } },
    }),
  );
}

/** `GET /v2/bots/:app_id/flow/impact`: conversations waiting in states the candidate removes. */
export async function getImpact(appId: string, version: number | 'draft'): Promise<Impact> {
  return unwrap(
    await api.GET('/v2/bots/{app_id}/flow/impact', {
      params: { ...bot(appId), query: { version: String(version) } },
    }),
  );
}
