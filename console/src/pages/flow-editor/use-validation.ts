/**
 * Validation as you type: the flow's text, once it rests for VALIDATE_DELAY_MS, goes to
 * `POST /v2/flows/validate`; answers are cached by text, and the last answer stays shown while
 * the next is on its way.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ApiError } from '../../api/api-error.ts';
import type { Problem } from '../../api/types.ts';
import { validateFlow } from './flow-api.ts';
import { useDebounced } from './use-debounced.ts';

/** Pause in typing before a validation request, in milliseconds. */
export const VALIDATE_DELAY_MS = 400;

export interface ValidationView {
  status: 'checking' | 'valid' | 'invalid' | 'unavailable';
  problems: Problem[];
  warnings: Problem[];
  error: ApiError | null;
}

/** `text` is the flow's JSON; `parses` says whether it is JSON at all (else nothing is sent). */
export function useValidation(text: string, parses: boolean, allowed = true): ValidationView {
  const settled = useDebounced(text, VALIDATE_DELAY_MS);
  // The settled text may be an older one that did not parse, though the current one does.
  const parsed = useMemo(() => {
    try {
      return { ok: true as const, value: JSON.parse(settled) as unknown };
    } catch {
      return { ok: false as const };
    }
  }, [settled]);
  const query = useQuery({
    queryKey: ['flow-validate', settled],
    queryFn: () => validateFlow(parsed.ok ? parsed.value : null),
    // A role that may not edit (a viewer) is not offered the check either: it would be refused.
    enabled: allowed && parses && parsed.ok,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    // Keys are whole flows (up to a few hundred KB); old answers need not stay long.
    gcTime: 30_000,
    retry: false,
  });
  const problems = query.data?.problems ?? [];
  const warnings = query.data?.warnings ?? [];
  if (query.isError)
    return { status: 'unavailable', problems, warnings, error: query.error as ApiError };
  const checking = settled !== text || query.isFetching || query.data === undefined;
  const status = checking ? 'checking' : query.data?.ok ? 'valid' : 'invalid';
  return { status, problems, warnings, error: null };
}
