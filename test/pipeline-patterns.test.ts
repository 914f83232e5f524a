/**
 * One bot's wait pattern against a hostile answer, end to end in one process (edge, channel,
 * language, flow on real Redis and Postgres, visitors on the web channel): the other bots' turns
 * go on, and the bot's own visitor is asked again.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { conversationSuite, startConversationComponents, type TestApi } from './support/api.ts';
import { openSse, type SseStream } from './support/sse.ts';
import {
  createWebBot,
  eventsUrl,
  postVisitorMessage,
  SHOP_ORIGIN,
  startSession,
  type VisitorSession,
} from './support/web.ts';

/** Bot R: a code that a backtracking engine takes tens of seconds to refuse for 28 `a`s and `!`. */
const PATTERN_FLOW = {
  version: 1,
  start: 'ask',
  states: {
    ask: {
      actions: [{ send: { text: 'Your code?' } }],
      wait: {
        store: 'code',
        expect: 'text',
        pattern: '^(a+)+$',
        retry_prompt: 'Please send only the letter a.',
      },
      next: 'done',
    },
    done: { actions: [{ send: { text: 'Code {{code}} taken.' } }], end: true },
  },
};

/** Bot B: answers every message. */
const ECHO_FLOW = {
  version: 1,
  start: 'listen',
  states: {
    listen: { wait: { store: 'said', expect: 'text' }, next: 'answer' },
    answer: { actions: [{ send: { text: 'B got {{said}}' } }], next: 'listen' },
  },
};

describe('a hostile answer to one bot’s wait pattern', function () {
  this.timeout(120_000);
  let t: TestApi;
  const clients: SseStream[] = [];
  conversationSuite({ CONSUMER_LEASE_MS: '1000' }, async (edge) => {
    t = edge;
    return startConversationComponents(edge);
  });
  after(() => {
    for (const client of clients.splice(0)) client.close();
  });

  const visitorOf = async (appId: string) => {
    const session: VisitorSession = await startSession(t, appId);
    const stream = await openSse(eventsUrl(t, appId, session.token), '', { origin: SHOP_ORIGIN });
    expect(stream.status).to.equal(200);
    clients.push(stream);
    const say = async (text: string) => {
      const sent = await postVisitorMessage(t, appId, session.token, {
        client_message_id: randomUUID(),
        text,
      });
      expect(sent.status, sent.text).to.equal(202);
    };
    /** The bot's texts so far. */
    const heard = () =>
      stream.events
        .filter((e) => e.event === 'message' && e.data.direction === 'out')
        .map((e) => e.data.text as string);
    return { stream, say, heard };
  };

  it("when a visitor of bot R answers its wait with a text its pattern would backtrack on, then bot B answers within max(3 s, 20 × its quiet time) and R's visitor is asked again", async () => {
    const r = await createWebBot(t, { name: 'R', flow: PATTERN_FLOW });
    const b = await createWebBot(t, { name: 'B', flow: ECHO_FLOW });
    const rv = await visitorOf(r.appId);
    const bv = await visitorOf(b.appId);

    /** From B's visitor's POST to B's answer (ms). */
    const answerTime = async (text: string, sideline?: () => Promise<void>) => {
      const before = bv.heard().length;
      await sideline?.();
      const started = performance.now();
      await bv.say(text);
      await bv.stream.waitForEvents(1, undefined, 60_000); // the stream is open
      for (;;) {
        if (bv.heard().slice(before).includes(`B got ${text}`)) break;
        if (performance.now() - started > 60_000) throw new Error(`B never answered ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return performance.now() - started;
    };

    const quiet = Math.max(
      await answerTime('quiet-1'),
      await answerTime('quiet-2'),
      await answerTime('quiet-3'),
    );
    await rv.say('hello');
    await rv.stream.waitForEvents(2, 'message', 15_000); // the echo and "Your code?"
    const during = await answerTime('during', () => rv.say(`${'a'.repeat(28)}!`));
    const bound = Math.max(3000, 20 * quiet);
    process.stderr.write(
      `      B's answer: quiet ${quiet.toFixed(0)} ms (slowest of 3), while R's pattern ran ${during.toFixed(0)} ms; bound ${bound.toFixed(0)} ms\n`,
    );
    expect(
      during,
      `B answered in ${during.toFixed(0)} ms (quiet ${quiet.toFixed(0)} ms)`,
    ).to.be.at.most(bound);
    await rv.stream.waitForEvents(4, 'message', 30_000);
    expect(rv.heard()).to.deep.equal(['Your code?', 'Please send only the letter a.']);
    await rv.say('aaaa');
    await rv.stream.waitForEvents(6, 'message', 15_000);
    expect(rv.heard().at(-1)).to.equal('Code aaaa taken.');
  });
});
