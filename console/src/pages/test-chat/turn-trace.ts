/**
 * What the flow understood and asked in the test chat's conversation, from its transcript's notes
 * (docs/flows.md): each option or intent matched by meaning with its score, and each call an llm
 * step made with its tokens and time. Plain TypeScript (no DOM).
 */
import type { TranscriptRow } from '../../api/types.ts';

export type TraceItem =
  | {
      key: string;
      kind: 'understood';
      what: 'option' | 'intent';
      name: string;
      score: number;
      state: string;
      said: string;
    }
  | { key: string; kind: 'llm'; model: string; tokens: number; ms: number; outcome: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The trace items of transcript rows, oldest first; rows that are not such notes are skipped. */
export function turnTrace(rows: readonly TranscriptRow[]): TraceItem[] {
  const items: TraceItem[] = [];
  for (const row of rows) {
    if (row.message_type !== 'note' || !isObject(row.body)) continue;
    const { understood: u, llm_call: call, said } = row.body;
    if (isObject(u) && (u.kind === 'option' || u.kind === 'intent')) {
      items.push({
        key: row.id,
        kind: 'understood',
        what: u.kind,
        name: String(u.name),
        score: Number(u.score),
        state: String(u.state),
        said: typeof said === 'string' ? said : '',
      });
    } else if (isObject(call)) {
      items.push({
        key: row.id,
        kind: 'llm',
        model: String(call.model),
        tokens: Number(call.tokens),
        ms: Number(call.ms),
        outcome: String(call.outcome),
      });
    }
  }
  return items;
}

/** One line of the trace as the test chat shows it. */
export function traceLine(item: TraceItem): string {
  if (item.kind === 'understood') {
    return `“${item.said}” → ${item.what} ${item.name} (score ${item.score.toFixed(3)}) in ${item.state}`;
  }
  if (item.tokens === 0 && item.outcome !== 'ok') {
    return `LLM step not made (${item.model}): ${item.outcome}`;
  }
  return `LLM call: ${item.model}, ${item.tokens} tokens, ${item.ms} ms, ${item.outcome}`;
}
