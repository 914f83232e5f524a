/**
 * Accounts, invites, the signed-in caller and its personal tokens (docs/accounts.md), as TanStack
 * Query hooks over the generated client.
 */
import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { api, unwrap } from './client.ts';
import type { components } from './schema.d.ts';

export type Account = components['schemas']['account'];
export type Invite = components['schemas']['invite'];
export type Me = components['schemas']['me'];
export type Token = components['schemas']['token'];
export type Role = Account['role'];

export const ROLES: Role[] = ['owner', 'builder', 'agent', 'viewer'];

const ME_KEY = ['me'] as const;
const ACCOUNTS_KEY = ['accounts'] as const;
const INVITES_KEY = ['invites'] as const;
const TOKENS_KEY = ['tokens'] as const;

/** A change that refetches the list under `key` once it is made (the mutation ends after it). */
function useChangeOf<TVariables, TData>(key: QueryKey, change: (v: TVariables) => Promise<TData>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
}

/** Who is signed in: name, role and (for an agent) assigned bots. */
export function useMe() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async () => unwrap(await api.GET('/v2/me')),
    staleTime: 60_000,
  });
}

export function useAccounts() {
  return useQuery({
    queryKey: ACCOUNTS_KEY,
    queryFn: async () => unwrap(await api.GET('/v2/accounts')).items,
  });
}

export function useInvites() {
  return useQuery({
    queryKey: INVITES_KEY,
    queryFn: async () => unwrap(await api.GET('/v2/invites')).items,
  });
}

export function useCreateInvite() {
  return useChangeOf(INVITES_KEY, async (body: components['schemas']['create-invite']) =>
    unwrap(await api.POST('/v2/invites', { body })),
  );
}

export function useWithdrawInvite() {
  return useChangeOf(INVITES_KEY, async (id: string) =>
    unwrap(await api.DELETE('/v2/invites/{id}', { params: { path: { id } } })),
  );
}

export function useUpdateAccount() {
  return useChangeOf(
    ACCOUNTS_KEY,
    async ({ id, patch }: { id: string; patch: components['schemas']['patch-account'] }) =>
      unwrap(await api.PATCH('/v2/accounts/{id}', { params: { path: { id } }, body: patch })),
  );
}

export function useTokens() {
  return useQuery({
    queryKey: TOKENS_KEY,
    queryFn: async () => unwrap(await api.GET('/v2/tokens')).items,
  });
}

export function useCreateToken() {
  return useChangeOf(TOKENS_KEY, async (body: components['schemas']['create-token']) =>
    unwrap(await api.POST('/v2/tokens', { body })),
  );
}

export function useRevokeToken() {
  return useChangeOf(TOKENS_KEY, async (id: string) =>
    unwrap(await api.DELETE('/v2/tokens/{id}', { params: { path: { id } } })),
  );
}

/** What an invite link offers (no sign-in needed). */
export function useInviteOffer(token: string) {
  return useQuery({
    queryKey: ['invite-offer', token],
    queryFn: async () =>
      unwrap(await api.GET('/v2/invites/{token}/accept', { params: { path: { token } } })),
    retry: false,
  });
}

export function useAcceptInvite(token: string) {
  return useMutation({
    mutationFn: async (body: components['schemas']['accept-invite']) =>
      unwrap(await api.POST('/v2/invites/{token}/accept', { params: { path: { token } }, body })),
  });
}
