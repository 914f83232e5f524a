/**
 * What the flow understood and did in the test chat's conversation, from its transcript's notes
 * (docs/flows.md, docs/console.md): each option or intent matched by meaning with its score, each
 * call an llm step made with its tokens and time, and each turn's trace (how it began, the states
 * entered, the transition that fired and why, the calls with their time and result, the
 * variables it changed, what was sent). Plain TypeScript (no DOM).
 */
import type { TranscriptRow } from '../../api/types.ts';
import { conditionText } from '../flow-editor/condition-text.ts';

export type TraceItem =
  | {
      key: string;
      kind: 'understood';
      what: 'option' | 'intent';
      name: string;
      score: number;
      state: string;
      said: string;
      /** The LLM chose it, the scores having left the text unclear. */
      byLlm: boolean;
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
        byLlm: u.by === 'llm',
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
    const how = item.byLlm
      ? `score ${item.score.toFixed(3)}, chosen by the LLM`
      : `score ${item.score.toFixed(3)}`;
    return `“${item.said}” → ${item.what} ${item.name} (${how}) in ${item.state}`;
  }
  if (item.tokens === 0 && item.outcome !== 'ok') {
    return `LLM step not made (${item.model}): ${item.outcome}`;
  }
  return `LLM call: ${item.model}, ${item.tokens} tokens, ${item.ms} ms, ${item.outcome}`;
}

/** One turn of a test chat as its trace shows it: how it began, then what it did, in order. */
export interface TurnView {
  key: string;
  began: string;
  lines: string[];
}

const str = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function beganText(began: Record<string, unknown>): string {
  const input = began.input;
  if (isObject(input)) {
    if (typeof input.choice_id === 'string') return `pressed ${input.choice_id}`;
    if (typeof input.text === 'string') return `“${input.text}”`;
    return `a ${str(input.message_type)} message`;
  }
  const result = began.effect_result;
  if (isObject(result)) {
    if (result.found === true) return 'the knowledge answer came back (found)';
    if (result.found === false) return 'the knowledge answer came back (nothing relevant)';
    return result.ok === true
      ? 'a step’s result came back'
      : `a step failed: ${str(result.code ?? 'error')}`;
  }
  if (began.reset === true) return 'a reset';
  if (typeof began.handoff_end === 'string') return `the handoff ended (${began.handoff_end})`;
  if (typeof began.move === 'string')
    return `a message the bot wrote first, answered in ${began.move}`;
  return 'a turn';
}

function stepText(step: Record<string, unknown>): string | undefined {
  const [kind] = Object.keys(step);
  const value = kind === undefined ? undefined : step[kind];
  if (kind === 'enter') return `entered ${str(value)}`;
  if (kind === 'wait') return `waits in ${str(value)} for an answer`;
  if (kind === 'retry') return `the answer did not fit ${str(value)}: asked again`;
  if (kind === 'fallback') return `the answer did not fit ${str(value)} again: its on fail`;
  if (kind === 'start') return `the flow started at ${str(value)}`;
  if (kind === 'end') return `the conversation ended in ${str(value)}`;
  if (!isObject(value)) return undefined;
  if (kind === 'transition') {
    const why = value.when === undefined ? 'no condition' : conditionText(value.when);
    return `${str(value.from)} → ${str(value.to)}: transition ${Number(value.index) + 1} (${why})`;
  }
  if (kind === 'next') return `${str(value.from)} → ${str(value.to)}: next`;
  if (kind === 'stopped') return `stopped in ${str(value.state)}: ${str(value.code)}`;
  if (kind === 'knowledge') {
    const found = value.found === true ? 'found a relevant passage' : 'found nothing relevant';
    return `the knowledge answer in ${str(value.state)} ${found}`;
  }
  if (kind === 'call') {
    const ms = typeof value.ms === 'number' ? `, ${value.ms} ms` : '';
    const name =
      value.kind === 'http' ? 'HTTP' : value.kind === 'llm' ? 'LLM' : 'knowledge question to';
    return `${name} ${str(value.what)}: ${str(value.outcome)}${ms}`;
  }
  // An effect step is shown by its call.
  return undefined;
}

const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** The variables a turn set, changed or cleared, as `name = value` lines. */
function changes(before: unknown, after: unknown): string[] {
  const was = isObject(before) ? before : {};
  const now = isObject(after) ? after : {};
  const lines: string[] = [];
  for (const [name, value] of Object.entries(now)) {
    if (JSON.stringify(was[name]) !== JSON.stringify(value))
      lines.push(`set ${name} = ${JSON.stringify(value)}`);
  }
  for (const name of Object.keys(was)) if (!(name in now)) lines.push(`cleared ${name}`);
  return lines;
}

/** The turn traces of transcript rows (test chats' only), oldest first. */
export function turnViews(rows: readonly TranscriptRow[]): TurnView[] {
  const views: TurnView[] = [];
  for (const row of rows) {
    if (row.message_type !== 'note' || !isObject(row.body) || !isObject(row.body.trace)) continue;
    const trace = row.body.trace;
    const steps = Array.isArray(trace.steps) ? trace.steps.filter(isObject) : [];
    const sent = Array.isArray(trace.sent) ? trace.sent.filter(isObject) : [];
    views.push({
      key: row.id,
      began: isObject(trace.began) ? beganText(trace.began) : 'a turn',
      lines: [
        ...steps.map(stepText).filter((line): line is string => line !== undefined),
        ...changes(trace.vars_before, trace.vars_after),
        ...sent.map((m) =>
          typeof m.text === 'string'
            ? `sent “${m.text}”`
            : `sent ${withArticle(str(m.message_type))}`,
        ),
      ],
    });
  }
  return views;
}
