/**
 * A conversation test's expectations, checked against what a step did. Each failure says what was
 * expected and what the bot did instead, in the words of the test (`steps[1].expect[0]`).
 * `text_matches` is RE2 (re2js), as a wait's pattern: linear in the text, never catastrophic.
 */
import { isDeepStrictEqual } from 'node:util';
import type {
  Expectation,
  Reply,
  StepOutcome,
} from '../../shared/flows/conversation-test-types.ts';
import { compilePattern } from '../../shared/flows/pattern.ts';

const quoted = (text: string): string => JSON.stringify(text);

function saidText(replies: Reply[]): string {
  return replies.length === 0
    ? 'the bot said nothing'
    : `the bot said ${replies.map((r) => quoted(r.text)).join(', ')}`;
}

/** The replies an expectation looks at: the one at `reply`, else all of the step's. */
function repliesOf(outcome: StepOutcome, reply: number | undefined): Reply[] | string {
  if (reply === undefined) return outcome.replies;
  const one = outcome.replies[reply];
  return one ? [one] : `there is no reply ${reply} (${outcome.replies.length} replies)`;
}

function textCheck(
  outcome: StepOutcome,
  reply: number | undefined,
  fits: (text: string) => boolean,
  wanted: string,
): string | undefined {
  const replies = repliesOf(outcome, reply);
  if (typeof replies === 'string') return replies;
  if (replies.some((r) => fits(r.text))) return undefined;
  return `expected ${reply === undefined ? 'a reply' : `reply ${reply}`} ${wanted}; ${saidText(replies)}`;
}

/** Why `expectation` does not hold for `outcome`, or undefined when it holds. */
export function failureOf(expectation: Expectation, outcome: StepOutcome): string | undefined {
  if ('text_equals' in expectation) {
    const want = expectation.text_equals;
    return textCheck(outcome, expectation.reply, (t) => t === want, `to be ${quoted(want)}`);
  }
  if ('text_contains' in expectation) {
    const want = expectation.text_contains;
    return textCheck(
      outcome,
      expectation.reply,
      (t) => t.includes(want),
      `to contain ${quoted(want)}`,
    );
  }
  if ('text_matches' in expectation) {
    const compiled = compilePattern(expectation.text_matches);
    if (!compiled.ok) return `the pattern does not compile: ${compiled.reason}`;
    return textCheck(
      outcome,
      expectation.reply,
      (t) => compiled.re.matcher(t).find(),
      `to match ${quoted(expectation.text_matches)}`,
    );
  }
  if ('buttons' in expectation) {
    const replies = repliesOf(outcome, expectation.reply);
    if (typeof replies === 'string') return replies;
    const offered = [...replies].reverse().find((r) => r.options.length > 0)?.options ?? [];
    const titles = offered.map((o) => o.title);
    if (isDeepStrictEqual(titles, expectation.buttons)) return undefined;
    return `expected the options ${JSON.stringify(expectation.buttons)}; ${
      titles.length === 0 ? 'none were offered' : `the bot offered ${JSON.stringify(titles)}`
    }`;
  }
  if ('state' in expectation) {
    if (outcome.state === expectation.state) return undefined;
    return `expected the conversation in state ${quoted(expectation.state)}; it is in ${
      outcome.state === null ? 'no state' : quoted(outcome.state)
    }`;
  }
  if ('variable' in expectation) {
    const value = outcome.variables[expectation.variable];
    if (isDeepStrictEqual(value, expectation.equals)) return undefined;
    return `expected variable ${quoted(expectation.variable)} to be ${JSON.stringify(
      expectation.equals,
    )}; it is ${value === undefined ? 'not set' : JSON.stringify(value)}`;
  }
  if ('handoff' in expectation) {
    if (outcome.handoff === expectation.handoff) return undefined;
    return expectation.handoff
      ? 'expected a handoff to start; none did'
      : 'expected no handoff; one started';
  }
  if ('ended' in expectation) {
    if (outcome.ended === expectation.ended) return undefined;
    return expectation.ended
      ? `expected the conversation to have ended; it waits in ${quoted(outcome.state ?? '')}`
      : 'expected the conversation to go on; it ended';
  }
  if (outcome.replies.length === expectation.replies) return undefined;
  return `expected ${expectation.replies} replies; ${saidText(outcome.replies)}`;
}

/** How an expectation reads in a failure: `text_equals "Hi"`. */
export function describeExpectation(expectation: Expectation): string {
  const [key, value] = Object.entries(expectation).find(([k]) => k !== 'reply' && k !== 'equals')!;
  const rest = 'equals' in expectation ? ` equals ${JSON.stringify(expectation.equals)}` : '';
  const reply =
    'reply' in expectation && expectation.reply !== undefined
      ? ` (reply ${expectation.reply})`
      : '';
  return `${key} ${JSON.stringify(value)}${rest}${reply}`;
}
