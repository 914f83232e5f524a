/** Bots through the admin API (TanStack Query hooks). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client.ts';
import type { BotPatch, NewBot } from './types.ts';

const BOTS_KEY = ['bots'] as const;
const botKey = (appId: string) => ['bots', appId] as const;

/** The first 100 bots (the console lists no more yet). */
export function useBots() {
  return useQuery({
    queryKey: BOTS_KEY,
    queryFn: async () => unwrap(await api.GET('/v2/bots', { params: { query: { limit: 100 } } })),
  });
}

export function useBot(appId: string) {
  return useQuery({
    queryKey: botKey(appId),
    queryFn: async () =>
      unwrap(await api.GET('/v2/bots/{app_id}', { params: { path: { app_id: appId } } })),
  });
}

export function useCreateBot() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (bot: NewBot) => unwrap(await api.POST('/v2/bots', { body: bot })),
    onSuccess: () => client.invalidateQueries({ queryKey: BOTS_KEY }),
  });
}

export function useUpdateBot(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (patch: BotPatch) =>
      unwrap(
        await api.PATCH('/v2/bots/{app_id}', { params: { path: { app_id: appId } }, body: patch }),
      ),
    onSuccess: (bot) => {
      client.setQueryData(botKey(appId), bot);
      return client.invalidateQueries({ queryKey: BOTS_KEY, exact: true });
    },
  });
}

export function useDeleteBot(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      unwrap(await api.DELETE('/v2/bots/{app_id}', { params: { path: { app_id: appId } } })),
    onSuccess: () => {
      client.removeQueries({ queryKey: botKey(appId) });
      return client.invalidateQueries({ queryKey: BOTS_KEY, exact: true });
    },
  });
}

export function useRegisterWebhook(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (channelId: string) =>
      unwrap(
        await api.POST('/v2/bots/{app_id}/channels/{channel_id}/webhook', {
          params: { path: { app_id: appId, channel_id: channelId } },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: botKey(appId) }),
  });
}

export function useAddChannel(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (channel: NewBot['channel']) =>
      unwrap(
        await api.POST('/v2/bots/{app_id}/channels', {
          params: { path: { app_id: appId } },
          body: channel,
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: botKey(appId) }),
  });
}

/** Replaces a channel's details (a web channel's allowed origins). */
export function useUpdateChannel(appId: string, channelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (details: Record<string, unknown>) =>
      unwrap(
        await api.PATCH('/v2/bots/{app_id}/channels/{channel_id}', {
          params: { path: { app_id: appId, channel_id: channelId } },
          body: { details },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: botKey(appId) }),
  });
}

/** Sets a WhatsApp channel's messaging limit alone (its access token is not asked again). */
export function useSetMessagingLimit(appId: string, channelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (limit: 250 | 1000 | 10000 | 100000 | 'unlimited') =>
      unwrap(
        await api.PUT('/v2/bots/{app_id}/channels/{channel_id}/messaging-limit', {
          params: { path: { app_id: appId, channel_id: channelId } },
          body: { messaging_limit: limit },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: botKey(appId) }),
  });
}

export function useRemoveChannel(appId: string, channelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      unwrap(
        await api.DELETE('/v2/bots/{app_id}/channels/{channel_id}', {
          params: { path: { app_id: appId, channel_id: channelId } },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: botKey(appId) }),
  });
}
