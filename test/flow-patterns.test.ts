/**
 * Waits' patterns: RE2 in the engine, and the flow component's pattern thread with its deadline.
 */
import { expect } from 'chai';
import { PatternMatcher } from '../src/flow/pattern-matcher.ts';
import { runTurn } from '../src/flow/engine/run-turn.ts';
import type { Flow } from '../src/shared/flows/types.ts';
import { createLogger } from '../src/shared/logger.ts';

const logger = createLogger({ component: 'test', level: 'silent' });

/** The largest RE2 program a pattern of 200 characters makes, over the longest text: seconds in JavaScript. */
const SLOW_PATTERN = `(?i)${'\\w{1,999}'.repeat(19)}#`;
const SLOW_TEXT = `${'a'.repeat(1023)}!`;

describe('wait patterns', function () {
  this.timeout(20_000);

  it('when a wait has a pattern a backtracking engine takes seconds over and the answer is hostile, then the answer is refused and asked again', () => {
    const flow: Flow = {
      version: 1,
      start: 'ask',
      states: {
        ask: {
          actions: [{ send: { text: 'Your code?' } }],
          wait: { store: 'code', expect: 'text', pattern: '^(a+)+$', retry_prompt: 'Again?' },
          next: 'done',
        },
        done: { actions: [{ send: { text: 'ok {{code}}' } }], end: true },
      },
    };
    let n = 0;
    const options = { newRequestId: () => `r${(n += 1)}` };
    const first = runTurn(
      flow,
      { state: null, vars: {} },
      { type: 'input', message_type: 'text', text: 'hi' },
      options,
    );
    const hostile = runTurn(
      flow,
      first.state,
      { type: 'input', message_type: 'text', text: `${'a'.repeat(28)}!` },
      options,
    );
    expect(hostile.outputs.map((o) => (o as { text?: string }).text)).to.deep.equal(['Again?']);
    expect(hostile.state.awaiting).to.include({ state: 'ask', retries: 1 });
    const good = runTurn(
      flow,
      hostile.state,
      { type: 'input', message_type: 'text', text: 'aaaa' },
      options,
    );
    expect(good.outputs.map((o) => (o as { text?: string }).text)).to.deep.equal(['ok aaaa']);
  });

  it('when a match runs past its deadline, then it counts as refused, this thread keeps running meanwhile, and the next match is answered', async () => {
    const matcher = new PatternMatcher({ logger, timeoutMs: 100 });
    try {
      expect(await matcher.test('^[A-Z]{2}\\d{4}$', 'AB1234')).to.equal('accepted');
      let ticks = 0;
      const ticking = setInterval(() => (ticks += 1), 5);
      const slow = await matcher.test(SLOW_PATTERN, SLOW_TEXT);
      clearInterval(ticking);
      expect(slow).to.equal('timeout');
      expect(ticks, 'timers of this thread ran while the pattern did').to.be.above(0);
      expect(await matcher.test('^[A-Z]{2}\\d{4}$', 'ab1234')).to.equal('refused');
      expect(await matcher.test('^(a+)+$', `${'a'.repeat(28)}!`)).to.equal('refused');
    } finally {
      await matcher.close();
    }
  });

  it("when one bot's matches run to the deadline one after another, then another bot's match waits for the one running only, not for the whole queue", async () => {
    const matcher = new PatternMatcher({ logger, timeoutMs: 100 });
    try {
      const settled: string[] = [];
      const ask = (name: string, bot: string, pattern: string, text: string) =>
        matcher.test(pattern, text, bot).then((outcome) => settled.push(`${name} ${outcome}`));
      const asked = [1, 2, 3, 4].map((n) => ask(`r${n}`, 'R', SLOW_PATTERN, SLOW_TEXT));
      asked.push(ask('b', 'B', '^[A-Z]{2}\\d{4}$', 'AB1234'));
      await Promise.all(asked);
      expect(settled).to.deep.equal([
        'r1 timeout',
        'b accepted',
        'r2 timeout',
        'r3 timeout',
        'r4 timeout',
      ]);
    } finally {
      await matcher.close();
    }
  });
});
