/**
 * A flow's knowledge step through the topics: the question goes to `retriver` with a reply
 * address; an answer on `flow` continues the conversation; with no answer, the deadline does.
 */
import { expect } from 'chai';
import { Producer } from '../src/shared/bus/producer.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import {
  captureTelegramTexts,
  conversationSuite,
  createTelegramBot,
  postTelegramUpdate,
  startConversationComponents,
  telegramText,
  topicMessages,
  type TestApi,
} from './support/api.ts';
import { faqFlow } from './support/flows.ts';
import { waitFor } from './support/services.ts';

const FAQ_FLOW = faqFlow('faq', 2);

describe('flow: answers from a knowledge collection', function () {
  this.timeout(30_000);
  let t: TestApi;
  let appId = '';
  let secret = '';
  const sent: string[] = [];

  conversationSuite({ FLOW_EFFECT_TIMEOUT_MS: '700' }, async (edge) => {
    t = edge;
    ({ appId, secret } = await createTelegramBot(t, { name: 'faq', flow: FAQ_FLOW }));
    captureTelegramTexts(sent);
    return startConversationComponents(t);
  });

  const ask = (chat: number, update: number, text: string) =>
    postTelegramUpdate(t, appId, secret, telegramText(chat, update, text));

  /** Answers a question found on the `retriver` topic, as the retriever would, with `value`. */
  const answer = async (
    question: {
      reply_to: { request_id: string; ordering_key: string; conversation: unknown };
    },
    value: string,
  ) => {
    const producer = new Producer({
      redis: t.redis,
      schemas: new SchemaRegistry(),
      prefix: t.prefix,
      maxLen: 1000,
      partitions: t.config.stream.partitions,
    });
    await producer.publish('flow', {
      source: 'retriver',
      turn_id: `${question.reply_to.request_id}:answer`,
      ordering_key: question.reply_to.ordering_key,
      intent: 'callback',
      conversation: question.reply_to.conversation,
      request_id: question.reply_to.request_id,
      ok: true,
      value,
    });
  };

  it('when a retriever answers on the flow topic in time, then the user gets the answer', async () => {
    await ask(11, 1, 'when are you open?');
    const question = await waitFor(
      async () => (await topicMessages(t.redis, t.prefix, 'retriver'))[0],
    );
    expect(question).to.deep.include({ collection_name: 'faq', query: 'when are you open?', k: 2 });
    expect(question.reply_to.topic).to.equal('flow');
    await answer(question, 'We are open 9 to 5.');
    await waitFor(() => sent.includes('A: We are open 9 to 5.'), { what: 'the answer' });
  });

  it("when an answer holds U+0000 and a lone surrogate (an LLM's words), then the flow stores it mended and the user gets it", async () => {
    await ask(13, 3, 'and on sundays?');
    const question = await waitFor(async () =>
      (await topicMessages(t.redis, t.prefix, 'retriver')).find(
        (m: { query: string }) => m.query === 'and on sundays?',
      ),
    );
    await answer(question, 'Closed\u0000 on Sundays \uD800.');
    // Without the mend the turn's state cannot be stored: it fails on every delivery, no reply.
    await waitFor(() => sent.includes('A: Closed on Sundays \uFFFD.'), { what: 'the answer' });
  });

  it('when no answer comes before the deadline, then the flow goes on without one', async () => {
    const before = sent.length;
    await ask(12, 2, 'anything?');
    await waitFor(() => sent.length > before, {
      timeoutMs: 10_000,
      what: 'the reply after the deadline',
    });
    expect(sent[sent.length - 1]).to.match(/^A: /);
    expect(sent[sent.length - 1]).to.not.equal('A: We are open 9 to 5.');
  });
});
