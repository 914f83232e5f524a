/** The console session: who is signed in, signing in and out (TanStack Query hooks). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from './api-error.ts';
import { api, unwrap } from './client.ts';
import type { Session } from './types.ts';

export const SESSION_KEY = ['session'] as const;

/** The current session; `null` when signed out (a 401 is an answer here, not an error). */
export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async (): Promise<Session | null> => {
      try {
        return unwrap(await api.GET('/v2/session'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** Signs in with the admin key (a string) or an account's email and password. */
export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (credentials: string | { email: string; password: string }) =>
      unwrap(
        await api.POST('/v2/session', {
          body: typeof credentials === 'string' ? { key: credentials } : credentials,
        }),
      ),
    // Whoever signed in before, nothing cached from them may show now.
    onSuccess: () => {
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] });
      return client.invalidateQueries({ queryKey: SESSION_KEY });
    },
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/v2/session')),
    // Whatever the answer, nothing cached from the session may outlive it.
    onSettled: () => {
      client.clear();
      client.setQueryData(SESSION_KEY, null);
    },
  });
}
