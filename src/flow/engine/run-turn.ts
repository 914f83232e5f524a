/**
 * The flow engine: one event in, the next conversation state, messages and effects out. Pure and
 * deterministic (request ids come from the caller); docs/flows.md describes the semantics.
 */
import { CompiledPatterns } from '../../shared/flows/pattern.ts';
import {
  metered,
  RenderBudgetError,
  RenderMeter,
  render,
  renderValue,
} from '../../shared/flows/template.ts';
import {
  RESERVED_VARS,
  type Flow,
  type FlowState,
  type IntentGlobal,
  type Wait,
} from '../../shared/flows/types.ts';
import { evaluateCondition } from './condition.ts';
import {
  acceptInput,
  choicesOf,
  defaultRetryText,
  isHandoffKeyword,
  isResetKeyword,
  matchChoice,
  optionsSendOf,
} from './input.ts';
import { httpEffect, languagePrompt, retrieveEffect, sendOutputs, textMessage } from './outputs.ts';
import { llmEffect } from './llm-effect.ts';
import {
  matchSettingsOf,
  hasWords,
  candidatesOf,
  decide,
  type Candidate,
  type MatchSettings,
  type Understood,
} from './meaning.ts';
import type {
  Awaiting,
  ConversationState,
  EffectResultEvent,
  FlowEvent,
  HandoffEndEvent,
  HandoffStart,
  InputEvent,
  MoveEvent,
  TraceStep,
  TurnOptions,
  TurnResult,
} from './types.ts';

/** State entries allowed per turn before the loop guard stops the turn. */
export const DEFAULT_MAX_STATE_ENTRIES = 50;
/** What the user reads when the loop guard stops a turn or the flow is stuck. */
export const DEFAULT_ERROR_TEXT = 'Sorry, something went wrong. Send any message to start again.';
/** Invalid answers to a language choice before the flow goes on without one. */
export const LANGUAGE_RETRIES = 2;
/** `max_retries` of a wait that does not set it. */
export const DEFAULT_MAX_RETRIES = 2;
/** Where an `answer_from` action stores its answer when it names no variable. */
export const DEFAULT_ANSWER_VAR = 'answer';

const UNSAFE_VARS = new Set<string>(['__proto__', 'constructor', 'prototype', ...RESERVED_VARS]);

type Target = { kind: 'go'; to: string; step: TraceStep } | { kind: 'end' } | { kind: 'none' };

interface Turn {
  flow: Flow;
  options: TurnOptions;
  state: ConversationState;
  outputs: TurnResult['outputs'];
  effects: TurnResult['effects'];
  errors: TurnResult['errors'];
  entries: number;
  /** What the turn's templates produced so far (MAX_RENDERED_CHARS). */
  meter: RenderMeter;
  testPattern: (pattern: string, text: string) => boolean;
  /** The answer accepted in this turn, seen by templates and conditions as `input`. */
  input?: unknown;
  /** The intent the turn's input was understood as: `{"intent": name}` conditions test it. */
  intent?: string;
  understood: Understood[];
  handoff?: HandoffStart;
  trace: TraceStep[];
}

function stateOf(turn: Turn, name: string): FlowState | undefined {
  return Object.hasOwn(turn.flow.states, name) ? turn.flow.states[name] : undefined;
}

/** Variables as templates and conditions see them, plus `input` and `language`. */
function scope(turn: Turn): Record<string, unknown> {
  return metered(
    {
      ...turn.state.vars,
      ...(turn.input === undefined ? {} : { input: turn.input }),
      ...(turn.state.language === undefined ? {} : { language: turn.state.language }),
    },
    turn.meter,
  );
}

function setVar(turn: Turn, name: string, value: unknown): void {
  if (UNSAFE_VARS.has(name)) return; // refused by validateFlow; never trusted here
  turn.state.vars = { ...turn.state.vars, [name]: value };
}

function stop(
  turn: Turn,
  code: 'BW_ERR_FLOW_LOOP' | 'BW_ERR_FLOW_STUCK' | 'BW_ERR_FLOW_BUDGET',
  name: string,
): void {
  const message =
    code === 'BW_ERR_FLOW_LOOP'
      ? `more than ${turn.options.maxStateEntries ?? DEFAULT_MAX_STATE_ENTRIES} state entries in one turn`
      : code === 'BW_ERR_FLOW_BUDGET'
        ? `the templates of one turn produced more than ${turn.meter.limit} characters`
        : `state "${name}" has nowhere to go`;
  turn.errors.push({ code, message, state: name });
  turn.trace.push({ stopped: { state: name, code } });
  // A loop may have queued dozens of messages; the user gets the apology alone.
  if (code !== 'BW_ERR_FLOW_STUCK') turn.outputs = [];
  // What the templates built is not kept either (the variables that fed them go with it).
  if (code === 'BW_ERR_FLOW_BUDGET') turn.state.vars = {};
  turn.outputs.push({
    message_type: 'text',
    text: turn.options.errorText ?? DEFAULT_ERROR_TEXT,
  });
  // Traced as stopped above, not as an end.
  end(turn, name, false);
}

function end(turn: Turn, name: string, traced = true): void {
  if (traced) turn.trace.push({ end: name });
  turn.state.state = name;
  turn.state.awaiting = undefined;
  turn.state.ended = true;
}

function targetOf(turn: Turn, name: string, def: FlowState): Target {
  if (def.transitions) {
    const vars = scope(turn);
    const index = def.transitions.findIndex(
      (t) => t.when === undefined || evaluateCondition(t.when, vars, turn.intent),
    );
    const hit = def.transitions[index];
    if (!hit) return { kind: 'none' };
    const when = hit.when === undefined ? {} : { when: hit.when };
    return {
      kind: 'go',
      to: hit.to,
      step: { transition: { from: name, to: hit.to, index, ...when } },
    };
  }
  if (def.next !== undefined)
    return { kind: 'go', to: def.next, step: { next: { from: name, to: def.next } } };
  return { kind: 'end' };
}

/**
 * Runs a state's actions from `from`, then its wait or its way out. Returns the state to enter
 * next, or undefined when the turn stops here (a wait, an effect, an end).
 */
function runState(turn: Turn, name: string, def: FlowState, from: number): string | undefined {
  const actions = def.actions ?? [];
  for (let i = from; i < actions.length; i += 1) {
    const action = actions[i];
    if (!action) continue;
    if ('send' in action) turn.outputs.push(...sendOutputs(action.send, scope(turn)));
    if ('set' in action) {
      const vars = scope(turn); // every value of one set sees the variables from before it
      for (const [key, value] of Object.entries(action.set)) {
        setVar(turn, key, typeof value === 'string' ? renderValue(value, vars) : value);
      }
    }
    if ('http' in action || 'answer_from' in action || 'llm' in action) {
      const requestId = turn.options.newRequestId();
      turn.trace.push({
        effect: {
          state: name,
          kind: 'http' in action ? 'http' : 'llm' in action ? 'llm' : 'retrieve',
        },
      });
      turn.effects.push(
        'http' in action
          ? httpEffect(action.http, scope(turn), requestId)
          : 'llm' in action
            ? llmEffect(action.llm, turn.flow, scope(turn), requestId)
            : retrieveEffect(action.answer_from, scope(turn), requestId),
      );
      // The turn goes on when the result comes back, as a turn of its own: what its input was
      // and was understood as travel with the state, so the states after the effect still see them.
      turn.state.awaiting = {
        kind: 'effect',
        request_id: requestId,
        state: name,
        action_index: i,
        ...(turn.input === undefined ? {} : { input: turn.input }),
        ...(turn.intent === undefined ? {} : { intent: turn.intent }),
      };
      return undefined;
    }
    if ('choose_language' in action) {
      turn.outputs.push(languagePrompt(action.choose_language, scope(turn)));
      turn.state.awaiting = { kind: 'input', state: name, retries: 0, action_index: i };
      return undefined;
    }
    if ('handoff' in action) {
      const { message, queue, fallback } = action.handoff;
      const text = message === undefined ? '' : render(message, scope(turn));
      if (text.trim() !== '') turn.outputs.push({ message_type: 'text', text });
      turn.state.awaiting = undefined;
      startHandoff(turn, { reason: 'step', fallback, ...(queue === undefined ? {} : { queue }) });
      return undefined;
    }
  }
  if (def.wait) {
    turn.state.awaiting = { kind: 'input', state: name, retries: 0 };
    turn.trace.push({ wait: name });
    return undefined;
  }
  return follow(turn, name, targetOf(turn, name, def));
}

function follow(turn: Turn, name: string, target: Target): string | undefined {
  if (target.kind === 'go') {
    turn.trace.push(target.step);
    return target.to;
  }
  if (target.kind === 'end') end(turn, name);
  else stop(turn, 'BW_ERR_FLOW_STUCK', name);
  return undefined;
}

/** Enters `first` and whatever it leads to, counting entries for the loop guard. */
function enter(turn: Turn, first: string | undefined): void {
  const limit = turn.options.maxStateEntries ?? DEFAULT_MAX_STATE_ENTRIES;
  for (let name = first; name !== undefined;) {
    turn.entries += 1;
    if (turn.entries > limit) return stop(turn, 'BW_ERR_FLOW_LOOP', name);
    turn.trace.push({ enter: name });
    const def = stateOf(turn, name);
    if (!def) return stop(turn, 'BW_ERR_FLOW_STUCK', name);
    turn.state.state = name;
    turn.state.ended = undefined;
    name = runState(turn, name, def, 0);
  }
}

/** Continues a state after the action at `index - 1` (an effect or a language choice). */
function resume(turn: Turn, name: string, def: FlowState, index: number): void {
  turn.state.awaiting = undefined;
  enter(turn, runState(turn, name, def, index));
}

/** A new start: variables cleared, `start` entered; the chosen language is kept. */
/**
 * The conversation starts anew (variables cleared, the chosen language kept), placed at `at`:
 * traced as a start, which the analytics count as a conversation.
 */
function beginAnew(turn: Turn, at: string | null): void {
  turn.state = {
    state: at,
    vars: {},
    ...(turn.state.language === undefined ? {} : { language: turn.state.language }),
  };
  turn.trace.push({ start: turn.flow.start });
}

function restart(turn: Turn): void {
  beginAnew(turn, null);
  enter(turn, turn.flow.start);
}

function retry(turn: Turn, name: string, def: FlowState, wait: Wait, retries: number): void {
  if (retries + 1 > (wait.max_retries ?? DEFAULT_MAX_RETRIES) && wait.on_fail !== undefined) {
    turn.state.awaiting = undefined;
    turn.trace.push({ fallback: name });
    return enter(turn, wait.on_fail);
  }
  const vars = scope(turn);
  const prompt = wait.retry_prompt === undefined ? '' : render(wait.retry_prompt, vars);
  const text = prompt.trim() === '' ? defaultRetryText(wait.expect ?? 'any') : prompt;
  // A retry shows the state's options again, so the user need not scroll back to them.
  turn.outputs.push(
    textMessage(text, optionsSendOf(def) ?? {}, vars) ?? { message_type: 'text', text },
  );
  turn.state.awaiting = { kind: 'input', state: name, retries: retries + 1 };
  turn.trace.push({ retry: name });
}

function answerWait(turn: Turn, awaiting: Awaiting & { kind: 'input' }, event: InputEvent): void {
  const name = awaiting.state;
  const def = stateOf(turn, name);
  if (!def?.wait) return restart(turn); // the flow was edited under the conversation
  const wait = def.wait;
  const choices = choicesOf(def, scope(turn));
  let checked = acceptInput(wait, event, choices, turn.testPattern);
  if (!checked.ok && wait.expect === 'choice') {
    // Not pressed nor typed exactly: the option closest in meaning, when clearly so.
    const ids = choices.map((c) => c.id);
    const hit = byMeaning(turn, event, [
      ...candidatesOf('option', event.meaning, ids),
      ...globalCandidates(turn, event),
    ]);
    if (hit?.kind === 'option') {
      turn.understood.push({
        kind: 'option',
        name: hit.name,
        score: hit.score,
        state: name,
        ...(hit.by ? { by: hit.by } : {}),
      });
      checked = { ok: true, value: hit.name };
    }
  }
  if (!checked.ok) return retry(turn, name, def, wait, awaiting.retries);
  setVar(turn, wait.store, checked.value);
  turn.input = checked.value;
  turn.state.awaiting = undefined;
  const target = targetOf(turn, name, def);
  if (target.kind === 'none') return retry(turn, name, def, wait, awaiting.retries);
  enter(turn, follow(turn, name, target));
}

function answerLanguage(turn: Turn, awaiting: Awaiting & { kind: 'input' }, event: InputEvent) {
  const index = awaiting.action_index ?? 0;
  const def = stateOf(turn, awaiting.state);
  const action = def?.actions?.[index];
  if (!def || !action || !('choose_language' in action)) return restart(turn);
  const options = action.choose_language.options.map((o) => ({ id: o.code, title: o.title }));
  const code = matchChoice(event, options);
  if (code !== undefined) turn.state.language = code;
  if (code !== undefined || awaiting.retries + 1 > LANGUAGE_RETRIES) {
    return resume(turn, awaiting.state, def, index + 1);
  }
  turn.outputs.push(languagePrompt(action.choose_language, scope(turn)));
  turn.state.awaiting = { ...awaiting, retries: awaiting.retries + 1 };
}

/** Puts the conversation in a person's hands; the caller records the handoff. */
function startHandoff(turn: Turn, start: Omit<HandoffStart, 'id'>): void {
  const id = (turn.options.newHandoffId ?? turn.options.newRequestId)();
  turn.state.handoff = { id, since: turn.options.now ?? new Date().toISOString() };
  turn.handoff = { id, ...start };
}

/**
 * A keyword hands the conversation over where it stands: its state and `awaiting` are kept, and
 * the fallback is the state it waited in (entered again, so it asks again), or `start`.
 */
function keywordHandoff(turn: Turn): void {
  const { state } = turn;
  const waiting = state.ended ? undefined : (state.awaiting?.state ?? state.state ?? undefined);
  const fallback =
    waiting !== undefined && stateOf(turn, waiting) !== undefined ? waiting : turn.flow.start;
  startHandoff(turn, { reason: 'keyword', fallback });
}

/** The handoff ended: return and timeout enter their state, close ends the conversation. */
function onHandoffEnd(turn: Turn, event: HandoffEndEvent): void {
  if (turn.state.handoff?.id !== event.id) return; // another handoff's, or one already ended
  turn.state.handoff = undefined;
  turn.state.awaiting = undefined;
  if (event.action === 'close') {
    turn.state.ended = true;
    return;
  }
  // A state the flow no longer has (a publish since) starts the conversation over.
  if (event.state === undefined || stateOf(turn, event.state) === undefined) return restart(turn);
  enter(turn, event.state);
}

/**
 * The conversation waits at `event.state`'s wait without running its actions: the message the
 * bot wrote first asked the question. A conversation that never started, or ended, starts anew
 * there; one in the middle of the flow keeps its variables, and leaves its state forward (the
 * analytics do not count it as given up there). A state the flow no longer has, or that waits
 * for nothing (a publish since the request was checked), changes nothing; nor does a move while
 * the turn waits for a step's answer (HTTP, knowledge, LLM), which the user would never get.
 */
function onMove(turn: Turn, event: MoveEvent): void {
  if (turn.state.awaiting?.kind === 'effect') return;
  if (!stateOf(turn, event.state)?.wait) {
    turn.errors.push({
      code: 'BW_ERR_UNKNOWN_STATE',
      message: `state "${event.state}" is gone or waits for nothing; the conversation stays where it was`,
      state: event.state,
    });
    return;
  }
  const from = turn.state.state;
  if (from === null || turn.state.ended) beginAnew(turn, event.state);
  else if (from !== event.state) turn.trace.push({ next: { from, to: event.state } });
  turn.state.state = event.state;
  turn.state.awaiting = { kind: 'input', state: event.state, retries: 0 };
  turn.trace.push({ enter: event.state }, { wait: event.state });
}

function matching(turn: Turn): MatchSettings {
  return matchSettingsOf(turn.flow.matching, turn.options.matching);
}

/** The clear winner among `candidates` for a text with words; none for a press. */
function byMeaning(turn: Turn, event: InputEvent, candidates: Candidate[]): Candidate | undefined {
  if (event.choice_id !== undefined || !hasWords(event.text)) return undefined;
  return decide(candidates, matching(turn), event.meaning);
}

/** The names of the flow's global intents. */
function globalNames(turn: Turn): Set<string> {
  return new Set((turn.flow.intents ?? []).filter((i) => i.global).map((i) => i.name));
}

/** The scores of the flow's global intents. */
function globalCandidates(turn: Turn, event: InputEvent): Candidate[] {
  const names = globalNames(turn);
  return candidatesOf('intent', event.meaning, [...names], names);
}

/**
 * A global intent acts from any wait, unless the answer is a press or an exact option, or an
 * option of the wait is as close in meaning (then the wait decides). True when it acted.
 */
function globalIntent(turn: Turn, awaiting: Awaiting & { kind: 'input' }, event: InputEvent) {
  const intent = (turn.flow.intents ?? []).find((i) => i.name === turn.intent);
  const def = stateOf(turn, awaiting.state);
  if (!intent?.global || !def) return false;
  let rivals: Candidate[] = [];
  if (awaiting.action_index === undefined && def.wait?.expect === 'choice') {
    const choices = choicesOf(def, scope(turn));
    if (matchChoice(event, choices) !== undefined) return false;
    rivals = candidatesOf(
      'option',
      event.meaning,
      choices.map((c) => c.id),
    );
  }
  const own = candidatesOf('intent', event.meaning, [intent.name], globalNames(turn));
  if (byMeaning(turn, event, [...own, ...rivals])?.kind !== 'intent') return false;
  actOnIntent(turn, intent.name, intent.global, event, awaiting.state);
  return true;
}

/**
 * A new or ended conversation's first message that clearly means a global intent acts at once,
 * instead of the greeting: `to` starts the conversation in that state, `handoff` hands it to a
 * person with `start` as the fallback. True when it acted.
 */
function globalFirstIntent(turn: Turn, event: InputEvent): boolean {
  const intent = (turn.flow.intents ?? []).find((i) => i.name === turn.intent);
  if (!intent?.global) return false;
  const { start } = turn.flow;
  // The flow starts here, at its start state, without entering it: the intent acts first.
  beginAnew(turn, start);
  actOnIntent(turn, intent.name, intent.global, event, start);
  return true;
}

/** What a global intent does, understood in `state` (the wait it came to, or `start`). */
function actOnIntent(
  turn: Turn,
  name: string,
  global: IntentGlobal,
  event: InputEvent,
  state: string,
): void {
  const score = candidatesOf('intent', event.meaning, [name])[0]?.score ?? 0;
  const chosen = event.meaning?.chosen;
  const byLlm = typeof chosen === 'object' && chosen.kind === 'intent' && chosen.name === name;
  turn.understood.push({ kind: 'intent', name, score, state, ...(byLlm ? { by: 'llm' } : {}) });
  if ('to' in global) {
    turn.input = event.text?.trim();
    turn.state.awaiting = undefined;
    return enter(turn, global.to);
  }
  // As for a keyword, the state and its `awaiting` are kept while the person has it.
  const { message, queue } = global.handoff;
  const text = message === undefined ? '' : render(message, scope(turn));
  if (text.trim() !== '') turn.outputs.push({ message_type: 'text', text });
  startHandoff(turn, {
    reason: 'intent',
    fallback: state,
    ...(queue === undefined ? {} : { queue }),
  });
}

function onInput(turn: Turn, event: InputEvent): void {
  const keywords = [...(turn.flow.reset_keywords ?? []), ...(turn.options.resetKeywords ?? [])];
  if (isResetKeyword(event.text, keywords)) return restart(turn);
  if (isHandoffKeyword(event.text, turn.options.handoffKeywords ?? [])) return keywordHandoff(turn);
  const intents = (turn.flow.intents ?? []).map((i) => i.name);
  turn.intent = byMeaning(
    turn,
    event,
    candidatesOf('intent', event.meaning, intents, globalNames(turn)),
  )?.name;
  const awaiting = turn.state.awaiting;
  if (
    turn.state.state === null ||
    turn.state.ended ||
    !awaiting ||
    !stateOf(turn, awaiting.state)
  ) {
    if (globalFirstIntent(turn, event)) return;
    restart(turn);
    // The first message starts the conversation; it is also the answer only when the bot had
    // nothing to say before its first wait (a bot that starts by listening).
    const now = turn.state.awaiting;
    if (turn.outputs.length === 0 && now?.kind === 'input' && now.action_index === undefined) {
      answerWait(turn, now, event);
    }
    return;
  }
  if (awaiting.kind === 'effect') return; // input while an effect is out is dropped; see docs
  if (globalIntent(turn, awaiting, event)) return;
  if (awaiting.action_index !== undefined) return answerLanguage(turn, awaiting, event);
  answerWait(turn, awaiting, event);
}

function onEffectResult(turn: Turn, event: EffectResultEvent): void {
  const awaiting = turn.state.awaiting;
  if (awaiting?.kind !== 'effect' || awaiting.request_id !== event.request_id) return;
  const def = stateOf(turn, awaiting.state);
  const action = def?.actions?.[awaiting.action_index];
  if (!def || !action) return stop(turn, 'BW_ERR_FLOW_STUCK', awaiting.state);
  turn.input = awaiting.input;
  turn.intent = awaiting.intent;
  const store =
    'http' in action
      ? action.http.store
      : 'llm' in action
        ? action.llm.store
        : 'answer_from' in action
          ? (action.answer_from.store ?? DEFAULT_ANSWER_VAR)
          : undefined;
  const value = event.ok
    ? (event.value ?? null)
    : { error: event.error ?? 'failed', ...(event.code ? { code: event.code } : {}) };
  if (store !== undefined) setVar(turn, store, value);
  // A knowledge answer says whether it found anything relevant: `<store>_found`, to branch on.
  if (store !== undefined && 'answer_from' in action) {
    const found = event.ok ? event.found !== false : false;
    setVar(turn, `${store}_found`, found);
    turn.trace.push({ knowledge: { state: awaiting.state, found } });
  }
  resume(turn, awaiting.state, def, awaiting.action_index + 1);
}

/** The stored state without undefined fields, so it round-trips through JSON unchanged. */
function tidy(state: ConversationState): ConversationState {
  return {
    state: state.state,
    vars: state.vars,
    ...(state.awaiting ? { awaiting: state.awaiting } : {}),
    ...(state.language === undefined ? {} : { language: state.language }),
    ...(state.ended ? { ended: true } : {}),
    ...(state.handoff ? { handoff: state.handoff } : {}),
  };
}

function quiet(turn: Turn): TurnResult {
  return {
    state: tidy(turn.state),
    outputs: [],
    effects: [],
    errors: [],
    trace: [],
    rendered: turn.meter.spent,
  };
}

/** Patterns matched in this thread, with RE2 (the default of `TurnOptions.testPattern`). */
function inProcessPatterns(): (pattern: string, text: string) => boolean {
  const patterns = new CompiledPatterns();
  return (pattern, text) => patterns.accepts(pattern, text);
}

/**
 * Runs one turn of `flow` for a conversation in `state` on `event`. The given state is not
 * changed; the result holds the next state, the messages to send in order, at most one effect to
 * carry out, and flow errors (loop guard, stuck state) for the logs.
 */
export function runTurn(
  flow: Flow,
  state: ConversationState,
  event: FlowEvent,
  options: TurnOptions,
): TurnResult {
  const turn: Turn = {
    flow,
    options,
    state: structuredClone(state),
    outputs: [],
    effects: [],
    errors: [],
    entries: 0,
    understood: [],
    trace: [],
    meter: new RenderMeter(undefined, options.rendered),
    testPattern: options.testPattern ?? inProcessPatterns(),
  };
  // While a person has the conversation only the end of the handoff moves it (docs/handoff.md).
  if (turn.state.handoff && event.type !== 'handoff_end') return quiet(turn);
  try {
    if (event.type === 'reset') restart(turn);
    else if (event.type === 'effect_result') onEffectResult(turn, event);
    else if (event.type === 'handoff_end') onHandoffEnd(turn, event);
    else if (event.type === 'move') onMove(turn, event);
    else onInput(turn, event);
  } catch (error) {
    if (!(error instanceof RenderBudgetError)) throw error;
    turn.effects = [];
    turn.handoff = undefined;
    stop(turn, 'BW_ERR_FLOW_BUDGET', turn.state.state ?? turn.flow.start);
  }
  return {
    state: tidy(turn.state),
    outputs: turn.outputs,
    effects: turn.effects,
    errors: turn.errors,
    ...(turn.handoff ? { handoff: turn.handoff } : {}),
    ...(turn.understood.length > 0 ? { understood: turn.understood } : {}),
    trace: turn.trace,
    rendered: turn.meter.spent,
  };
}
