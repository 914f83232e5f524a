/** A change to one handoff as a mutation that refetches it and the inbox once it is done. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { inboxKeys } from './inbox-api.ts';

export function useHandoffAction<A = void>(run: (arg: A) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    // Also after a refusal: a 409 means the handoff changed, and the page shows how. Not awaited,
    // so a caller's own onSuccess (clearing a sent draft) does not wait for the refetch.
    onSettled: () => void queryClient.invalidateQueries({ queryKey: inboxKeys.all }),
  });
}
