/**
 * Translation through a LibreTranslate-compatible provider (a stand-in on nock), end to end: what
 * a German-speaking user writes reaches the flow in the bot's language, and the bot's replies
 * reach the user in German. When the provider fails, the text passes through untranslated.
 */
import { expect } from 'chai';
import nock from 'nock';
import {
  captureTelegramTexts,
  conversationSuite,
  createTelegramBot,
  postTelegramUpdate,
  startConversationComponents,
  telegramText,
  type TestApi,
} from './support/api.ts';
import { waitFor } from './support/services.ts';

const TRANSLATE = 'https://translate.example.test';

/** Greets, then repeats back what the user said, in the bot's language (English). */
const ECHO_FLOW = {
  version: 1,
  start: 'ask',
  states: {
    ask: {
      actions: [{ send: { text: 'What do you need?' } }],
      wait: { store: 'said' },
      next: 'echo',
    },
    echo: { actions: [{ send: { text: 'You said: {{said}}' } }], end: true },
  },
};

const GREETING = 'Guten Morgen, ich brauche bitte Hilfe mit meiner Bestellung von gestern.';
const REQUEST =
  'Meine Bestellung ist noch nicht angekommen, obwohl sie letzte Woche verschickt wurde.';

describe('pipeline with a translation provider', function () {
  this.timeout(30_000);
  let t: TestApi;
  let bot: { appId: string; secret: string };

  conversationSuite({ TRANSLATE_API_URL: TRANSLATE }, async (edge) => {
    t = edge;
    bot = await createTelegramBot(t, { name: 'echo', flow: ECHO_FLOW });
    return startConversationComponents(t);
  });

  afterEach(() => nock.cleanAll());

  /** The texts sent to the user, in order. */
  const captureTexts = (): string[] => {
    const sent: string[] = [];
    captureTelegramTexts(sent);
    return sent;
  };

  it('when a German speaker writes to an English bot, then the flow gets English and the user gets German', async () => {
    const asked: { q: string; source: string; target: string }[] = [];
    const answers: Record<string, string> = {
      [GREETING]: 'Good morning, I need help with my order from yesterday.',
      [REQUEST]: 'My order has not arrived yet, although it was shipped last week.',
      'What do you need?': 'Was brauchen Sie?',
      'You said: My order has not arrived yet, although it was shipped last week.':
        'Sie sagten: Meine Bestellung ist noch nicht angekommen.',
    };
    nock(TRANSLATE)
      .post('/translate')
      .times(4)
      .reply((_uri, body) => {
        const request = body as { q: string; source: string; target: string };
        asked.push(request);
        const translated = answers[request.q];
        return translated === undefined
          ? [400, { error: `unexpected text: ${request.q}` }]
          : [200, { translatedText: translated }];
      });
    const sent = captureTexts();

    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(61, 1, GREETING));
    await waitFor(() => sent.length === 1, { what: 'the greeting' });
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(61, 2, REQUEST));
    await waitFor(() => sent.length === 2, { what: 'the echo' });

    expect(sent).to.deep.equal([
      'Was brauchen Sie?',
      'Sie sagten: Meine Bestellung ist noch nicht angekommen.',
    ]);
    // In: the user's German into the bot's English; out: the bot's English into German.
    expect(asked.map(({ source, target }) => `${source}>${target}`)).to.deep.equal([
      'de>en',
      'en>de',
      'de>en',
      'en>de',
    ]);
  });

  it('when the provider fails, then the text passes through untranslated and the conversation goes on', async () => {
    nock(TRANSLATE).post('/translate').times(4).reply(503, { error: 'overloaded' });
    const sent = captureTexts();
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(62, 3, GREETING));
    await waitFor(() => sent.length === 1, { what: 'the greeting' });
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(62, 4, REQUEST));
    await waitFor(() => sent.length === 2, { what: 'the echo' });
    expect(sent).to.deep.equal(['What do you need?', `You said: ${REQUEST}`]);
  });

  it('when the provider answers with U+0000 and a lone surrogate, then the flow gets the text mended and the conversation goes on', async () => {
    const asked: string[] = [];
    nock(TRANSLATE)
      .post('/translate')
      .times(4)
      .reply((_uri, body) => {
        const { q, source } = body as { q: string; source: string };
        asked.push(q);
        // Inbound: the user's text, broken; outbound: the bot's text as it is.
        return [200, { translatedText: source === 'de' ? 'Late\u0000 order \uD800.' : q }];
      });
    const sent = captureTexts();
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(63, 5, GREETING));
    await waitFor(() => sent.length === 1, { what: 'the greeting' });
    await postTelegramUpdate(t, bot.appId, bot.secret, telegramText(63, 6, REQUEST));
    // Without the mend flow cannot store the answer in its state: the turn fails on every try.
    await waitFor(() => sent.length === 2, { what: 'the echo' });
    expect(sent[1]).to.equal('You said: Late order \uFFFD.');
  });
});
