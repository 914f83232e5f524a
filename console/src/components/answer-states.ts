/**
 * The states a message written first may send its answer to (`flow_state`; docs/outbound.md,
 * "The answer goes to a state"): the published flow's states that wait for an answer, by name.
 */
export function answerStates(flow: unknown): string[] {
  const states = (flow as { states?: unknown } | null | undefined)?.states;
  if (states === null || typeof states !== 'object' || Array.isArray(states)) return [];
  return Object.entries(states as Record<string, unknown>)
    .filter(([, def]) => typeof def === 'object' && def !== null && 'wait' in def && def.wait)
    .map(([name]) => name)
    .sort();
}
