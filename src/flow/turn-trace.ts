/**
 * The turn trace of a test chat (docs/console.md, "Test chat"): what one turn did, kept in the
 * test conversation's transcript as a `note` row (`trace`); real users' transcripts do not get it.
 * How the turn began, each state entered and how it was left (the transition that fired, by its
 * index and condition), the HTTP, LLM and knowledge calls with their time and result, the
 * variables before and after, and what was sent, in order.
 *
 * An HTTP call shows its method, origin and path only: a flow's query strings and headers may
 * carry keys, and transcripts are read by roles that may not read flows (docs/accounts.md).
 */
import type {
  Effect,
  EffectResultEvent,
  FlowEvent,
  OutMessage,
  TraceStep,
  TurnResult,
} from './engine/types.ts';
import type { LlmCallRecord } from './llm-call.ts';

/** A call a turn made, as the trace shows it. */
export interface TraceCall {
  kind: 'http' | 'llm' | 'knowledge';
  /** What was called: `GET https://api.example/orders`, a model, a collection. */
  what: string;
  /** How long it took (ms); absent for a knowledge question, answered in a later turn. */
  ms?: number;
  /** `ok`, `HTTP 404`, a catalogue code, or `asked` (knowledge). */
  outcome: string;
}

export type TurnTraceStep = TraceStep | { call: TraceCall };

/** Characters of a text kept in the trace. */
const TEXT_CHARS = 200;

const clip = (text: string): string =>
  text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS - 1)}…` : text;

function began(event: FlowEvent): Record<string, unknown> {
  switch (event.type) {
    case 'input':
      return {
        input: {
          message_type: event.message_type,
          ...(event.text === undefined ? {} : { text: clip(event.text) }),
          ...(event.choice_id === undefined ? {} : { choice_id: event.choice_id }),
        },
      };
    case 'effect_result':
      return { effect_result: resultOf(event) };
    case 'reset':
      return { reset: true };
    case 'handoff_end':
      return { handoff_end: event.action };
    case 'move':
      return { move: event.state };
  }
}

function resultOf(event: EffectResultEvent): Record<string, unknown> {
  return {
    ok: event.ok,
    ...(event.found === undefined ? {} : { found: event.found }),
    ...(event.code === undefined ? {} : { code: event.code }),
  };
}

/** `GET https://host/path`: no query string, no credentials. */
function endpoint(method: string, url: string): string {
  try {
    const parsed = new URL(url);
    return `${method} ${parsed.origin}${parsed.pathname}`;
  } catch {
    return `${method} (an address that is not a URL)`;
  }
}

function sentOf(message: OutMessage): Record<string, unknown> {
  const text = 'text' in message ? message.text : 'caption' in message ? message.caption : '';
  return { message_type: message.message_type, ...(text ? { text: clip(text) } : {}) };
}

export class TurnTrace {
  readonly #began: Record<string, unknown>;
  readonly #varsBefore: Record<string, unknown>;
  readonly #steps: TurnTraceStep[] = [];
  /**
   * The note's place in its turn: a knowledge answer goes on in a turn of the same id, whose trace
   * is a note of its own.
   */
  readonly seq: string;

  constructor(event: FlowEvent, varsBefore: Record<string, unknown>) {
    this.#began = began(event);
    this.#varsBefore = varsBefore;
    this.seq =
      event.type === 'effect_result'
        ? `trace.${event.request_id}`
        : event.type === 'handoff_end'
          ? `trace.handoff.${event.id}`
          : 'trace';
  }

  /** The steps of one engine run of the turn. */
  run(result: TurnResult): void {
    this.#steps.push(...result.trace);
  }

  http(effect: Extract<Effect, { kind: 'http' }>, event: EffectResultEvent, ms: number): void {
    const status = (event.value as { status?: unknown } | undefined)?.status;
    const outcome = event.ok ? `ok (HTTP ${String(status)})` : (event.code ?? event.error ?? '');
    this.#call({ kind: 'http', what: endpoint(effect.method, effect.url), ms, outcome });
  }

  llm(calls: readonly LlmCallRecord[]): void {
    for (const call of calls) {
      const outcome = call.tokens > 0 ? `${call.outcome}, ${call.tokens} tokens` : call.outcome;
      this.#call({ kind: 'llm', what: call.model, ms: call.ms, outcome });
    }
  }

  knowledge(effect: Extract<Effect, { kind: 'retrieve' }>): void {
    this.#call({ kind: 'knowledge', what: effect.collection, outcome: 'asked' });
  }

  #call(call: TraceCall): void {
    this.#steps.push({ call });
  }

  /** The transcript note: its place in the turn, its line, and the trace (`body`). */
  note(
    varsAfter: Record<string, unknown>,
    sent: readonly OutMessage[],
  ): { seq: string; summary: string; body: Record<string, unknown> } {
    return { seq: this.seq, summary: this.#summary(), body: this.#body(varsAfter, sent) };
  }

  /** One line for the transcript: the states the turn went through. */
  #summary(): string {
    const entered = this.#steps.flatMap((s) => ('enter' in s ? [s.enter] : []));
    return entered.length === 0
      ? 'Turn trace: no state entered.'
      : `Turn trace: ${entered.join(' → ')}.`;
  }

  /** Everything above, with the variables after and what was sent. */
  #body(varsAfter: Record<string, unknown>, sent: readonly OutMessage[]): Record<string, unknown> {
    return {
      began: this.#began,
      steps: this.#steps,
      vars_before: this.#varsBefore,
      vars_after: varsAfter,
      sent: sent.map(sentOf),
    };
  }
}
