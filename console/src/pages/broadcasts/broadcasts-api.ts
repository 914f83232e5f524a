/** The broadcast routes the console calls (docs/outbound.md, "Broadcasts"). */
import { api, unwrap } from '../../api/client.ts';
import type { Answer, Body } from '../../api/types.ts';
import type { LimitPlan } from './broadcast-words.ts';

export type Broadcast = Answer<'/v2/broadcasts/{id}', 'get'>;
export type NewBroadcast = Body<'/v2/bots/{app_id}/broadcasts', 'post'>;
export type Move = 'pause' | 'resume' | 'cancel';

export const broadcastKeys = {
  list: (appId: string) => ['broadcasts', appId] as const,
};

export async function listBroadcasts(appId: string): Promise<Broadcast[]> {
  const page = unwrap(
    await api.GET('/v2/bots/{app_id}/broadcasts', { params: { path: { app_id: appId } } }),
  );
  return page.items;
}

/** A dry run: who would get it, and who would be skipped and why. */
export async function previewBroadcast(appId: string, body: NewBroadcast) {
  const answer = unwrap(
    await api.POST('/v2/bots/{app_id}/broadcasts', {
      params: { path: { app_id: appId } },
      body: { ...body, dry_run: true },
    }),
  );
  return answer as {
    total: number;
    will_send: number;
    skipped: Record<string, number>;
    messaging_limit?: LimitPlan;
  };
}

export async function createBroadcast(appId: string, body: NewBroadcast): Promise<Broadcast> {
  const answer = unwrap(
    await api.POST('/v2/bots/{app_id}/broadcasts', { params: { path: { app_id: appId } }, body }),
  );
  return answer as Broadcast;
}

export async function moveBroadcast(id: string, move: Move): Promise<Broadcast> {
  const path = { params: { path: { id } } };
  switch (move) {
    case 'pause':
      return unwrap(await api.POST('/v2/broadcasts/{id}/pause', path));
    case 'resume':
      return unwrap(await api.POST('/v2/broadcasts/{id}/resume', path));
    case 'cancel':
      return unwrap(await api.POST('/v2/broadcasts/{id}/cancel', path));
  }
}

/** Every recipient's outcome, as CSV. */
export const recipientsCsvUrl = (id: string): string => `/v2/broadcasts/${id}/recipients`;
