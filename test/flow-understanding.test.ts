/**
 * Free text understood by meaning with the embedded model (real vectors, no stand-in): the flow
 * component's scores (`src/flow/understanding.ts`) fed to the engine, first directly, then end to
 * end (edge, channel, language and flow in this process, Telegram on nock): the matched option
 * goes to the transcript with its score, and a global intent hands a deep conversation to a
 * person.
 */
import { expect } from 'chai';
import { runTurn } from '../src/flow/engine/run-turn.ts';
import { DEFAULT_MATCHING } from '../src/flow/engine/meaning.ts';
import type { ConversationState, InputEvent } from '../src/flow/engine/types.ts';
import { createUnderstanding, type Understanding } from '../src/flow/understanding.ts';
import { LocalEmbeddingProvider } from '../src/shared/embeddings/local-provider.ts';
import type { Flow } from '../src/shared/flows/types.ts';
import {
  captureTelegramTexts,
  conversationSuite,
  createTelegramBot,
  postTelegramUpdate,
  startConversationComponents,
  telegramText,
  type TelegramTestBot,
  type TestApi,
} from './support/api.ts';
import { answer, standIn } from './support/embeddings-stub.ts';
import { startLlmStub, type LlmStub } from './support/llm-stub.ts';
import { waitFor } from './support/services.ts';

/** The menu, with a few example phrases, and a global intent that calls a person. */
const MENU_FLOW = {
  version: 1,
  start: 'welcome',
  intents: [
    {
      name: 'human',
      description: 'the user wants a person, not the bot',
      examples: ['talk to a human', 'I want to speak to someone', 'connect me with an agent'],
      global: { handoff: { message: 'A person will take over shortly.' } },
    },
  ],
  states: {
    welcome: { actions: [{ send: { text: 'Hi! Spoke & Chain here.' } }], next: 'menu' },
    menu: {
      actions: [
        {
          send: {
            text: 'How can I help?',
            buttons: [
              {
                id: 'book',
                title: 'Book a repair',
                examples: ['fix my bike', 'my bike needs a repair', 'book a service appointment'],
              },
              {
                id: 'hours',
                title: 'Opening hours',
                examples: ['when are you open', 'what time do you close'],
              },
              {
                id: 'ask',
                title: 'Ask a question',
                examples: ['I have a question', 'can I ask something'],
              },
            ],
          },
        },
      ],
      wait: { store: 'topic', expect: 'choice', retry_prompt: 'Please pick one of the options.' },
      transitions: [
        { when: { '==': [{ var: 'topic' }, 'book'] }, to: 'bikes' },
        { when: { '==': [{ var: 'topic' }, 'hours'] }, to: 'hours' },
        { to: 'question' },
      ],
    },
    bikes: {
      actions: [{ send: { text: 'How many bikes will you bring?' } }],
      wait: { store: 'bikes', expect: 'number' },
      next: 'email',
    },
    email: {
      actions: [{ send: { text: 'Which email should get the confirmation?' } }],
      wait: { store: 'email', expect: 'email' },
      next: 'booked',
    },
    booked: { actions: [{ send: { text: 'Booked.' } }], end: true },
    hours: { actions: [{ send: { text: 'Open 9 to 6.' } }], next: 'menu' },
    question: { actions: [{ send: { text: 'Ask away.' } }], wait: { store: 'q' }, next: 'menu' },
  },
} as unknown as Flow;

/**
 * What the stand-in embeddings API understands: a word of one of these families, in English or
 * Spanish, counts towards its dimension; any other word towards one of two others. A stand-in of a
 * multilingual model, which the embedded English one is not.
 */
const CONCEPTS = [
  ['book', 'repair', 'fix', 'bike', 'service', 'reparar', 'arreglar', 'bicicleta'],
  ['open', 'close', 'hours', 'time', 'horario', 'abierto', 'abren'],
  ['question', 'ask', 'pregunta', 'preguntar'],
  ['human', 'person', 'someone', 'agent', 'speak', 'talk', 'persona', 'hablar', 'alguien'],
];
function concepts(text: string): number[] {
  const vector = Array<number>(CONCEPTS.length + 2).fill(0);
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const family = CONCEPTS.findIndex((words) => words.includes(word));
    vector[family >= 0 ? family : CONCEPTS.length + (word.length % 2)]! += family >= 0 ? 1 : 0.2;
  }
  return vector;
}

/**
 * A Telegram user of the suite's bot: `post` sends a text from chat `chat`; `tell` sends it and
 * waits until the bot has sent `expected` (its texts are captured in `sent`).
 */
function telegramUser(suite: () => { t: TestApi; bot: TelegramTestBot }, sent: string[]) {
  let update = 7000;
  const post = async (chat: number, text: string): Promise<void> => {
    const { t, bot } = suite();
    const answer = await postTelegramUpdate(
      t,
      bot.appId,
      bot.secret,
      telegramText(chat, (update += 1), text),
    );
    expect(answer.status).to.equal(200);
  };
  const tell = async (chat: number, text: string, expected: string): Promise<void> => {
    const before = sent.length;
    await post(chat, text);
    await waitFor(() => sent.slice(before).includes(expected), {
      timeoutMs: 20_000,
      what: `"${expected}" after "${text}"`,
    });
  };
  return { post, tell };
}

const waitingIn = (state: string, vars: Record<string, unknown> = {}): ConversationState => ({
  state,
  vars,
  awaiting: { kind: 'input', state, retries: 0 },
});

const said = (text: string): InputEvent => ({ type: 'input', message_type: 'text', text });

describe('flow: free text understood by meaning (embedded model)', function () {
  this.timeout(60_000);

  describe('scores and the engine', () => {
    let understanding: Understanding;
    before(() => {
      understanding = createUnderstanding(
        new LocalEmbeddingProvider(),
        (error) => {
          throw error;
        },
        30_000,
      );
    });
    after(async () => understanding.close());

    /** The turn the flow component runs: scores first, then the engine. */
    const turn = async (state: ConversationState, text: string) => {
      const event = said(text);
      const meaning = await understanding.scores(MENU_FLOW, state, event);
      const result = runTurn(
        MENU_FLOW,
        state,
        { ...event, ...(meaning ? { meaning } : {}) },
        {
          newRequestId: () => 'r1',
        },
      );
      return { meaning, result };
    };

    it('when the user writes "I\'d like to get my bike fixed" at the menu, then "book" is picked', async () => {
      const { result, meaning } = await turn(waitingIn('menu'), "I'd like to get my bike fixed");
      expect(result.state.vars.topic, JSON.stringify(meaning)).to.equal('book');
      expect(result.state.awaiting).to.include({ state: 'bikes' });
      expect(result.understood?.[0]).to.include({ kind: 'option', name: 'book', state: 'menu' });
    });

    it('when the user writes "asdfgh", then no option is picked and the menu is asked again', async () => {
      const { result, meaning } = await turn(waitingIn('menu'), 'asdfgh');
      expect(result.state.awaiting, JSON.stringify(meaning)).to.deep.equal({
        kind: 'input',
        state: 'menu',
        retries: 1,
      });
      expect(result.outputs[0]).to.include({ text: 'Please pick one of the options.' });
    });

    it('when an answer is about as close to two options, then the menu is asked again', async () => {
      const { result, meaning } = await turn(waitingIn('menu'), 'is it a repair or a question');
      const scores = (meaning?.options ?? []).map((o) => o.score).sort((a, b) => b - a);
      // As close to "Book a repair" as to "Ask a question": within the margin of each other.
      expect(scores[0]! - scores[1]!, JSON.stringify(meaning)).to.be.below(DEFAULT_MATCHING.margin);
      expect(result.state.awaiting).to.include({ state: 'menu', retries: 1 });
      expect(result.understood).to.equal(undefined);
    });

    it('when a title is typed exactly, then it wins at once: nothing is embedded and no intent acts', async () => {
      const { result, meaning } = await turn(waitingIn('menu'), 'opening HOURS');
      expect(meaning).to.equal(undefined);
      expect(result.state.vars.topic).to.equal('hours');
      expect(result.outputs[0]).to.include({ text: 'Open 9 to 6.' });
    });

    it('when the user writes "talk to a person" in a deep state, then the global intent starts the handoff there', async () => {
      const deep = waitingIn('email', { topic: 'book', bikes: 2 });
      const { result, meaning } = await turn(deep, 'talk to a person');
      expect(result.handoff, JSON.stringify(meaning)).to.deep.include({
        reason: 'intent',
        fallback: 'email',
      });
      expect(result.outputs).to.deep.equal([
        { message_type: 'text', text: 'A person will take over shortly.' },
      ]);
      expect(result.state.vars).to.deep.equal({ topic: 'book', bikes: 2 });
    });

    it('when a new user\'s first message is small talk ("hi there", "can you help me"), then the greeting answers it, not the one intent it is closest to', async () => {
      for (const text of ['hi there', 'can you help me', 'thanks']) {
        const { result, meaning } = await turn({ state: null, vars: {} }, text);
        // The intent alone would pass the least score: small talk is the rival that stops it.
        expect(result.handoff, `${text}: ${JSON.stringify(meaning)}`).to.equal(undefined);
        expect(result.outputs[0], text).to.include({ text: 'Hi! Spoke & Chain here.' });
        expect(meaning?.small_talk, text).to.be.a('number');
      }
    });

    it('when a valid answer to a deep state means no intent, then it is an ordinary answer', async () => {
      const { result } = await turn(waitingIn('email', { bikes: 2 }), 'ana@example.com');
      expect(result.handoff).to.equal(undefined);
      expect(result.state.vars.email).to.equal('ana@example.com');
    });
  });

  describe('end to end', () => {
    let t: TestApi;
    let bot: TelegramTestBot;
    const sent: string[] = [];

    conversationSuite({}, async (edge) => {
      t = edge;
      bot = await createTelegramBot(t, { name: 'meaning', flow: MENU_FLOW });
      captureTelegramTexts(sent);
      return startConversationComponents(t);
    });

    const { post, tell } = telegramUser(() => ({ t, bot }), sent);

    const conversationOf = async (chat: number): Promise<string> => {
      const row = await t.schema
        .db('conversations')
        .where({ chat_id: String(chat) })
        .first();
      return row.id as string;
    };

    it('when a user answers the menu in their own words, then the bot goes on with the option and the transcript notes the match and its score', async () => {
      await tell(501, 'hi', 'How can I help?');
      await tell(501, "I'd like to get my bike fixed", 'How many bikes will you bring?');
      const notes = await t.schema
        .db('messages')
        .where({ conversation_id: await conversationOf(501), message_type: 'note' });
      expect(notes).to.have.length(1);
      expect(notes[0].body.understood).to.include({ kind: 'option', name: 'book', state: 'menu' });
      expect(notes[0].body.understood.score).to.be.a('number').above(DEFAULT_MATCHING.minScore);
      expect(notes[0].body.said).to.equal("I'd like to get my bike fixed");
    });

    it('when a new user\'s first message is "I want to talk to a person", then a handoff opens at once, without the greeting, with start as its fallback', async () => {
      const before = sent.length;
      await tell(503, 'I want to talk to a person', 'A person will take over shortly.');
      expect(sent.slice(before)).to.deep.equal(['A person will take over shortly.']);
      const handoffs = await t.schema
        .db('handoffs')
        .where({ conversation_id: await conversationOf(503) });
      expect(handoffs.map((h) => [h.status, h.reason, h.fallback_state])).to.deep.equal([
        ['waiting', 'intent', 'welcome'],
      ]);
    });

    it('when a user deep in a booking writes "talk to a person", then a handoff opens for a person and the bot stays quiet', async () => {
      await tell(502, 'hi', 'How can I help?');
      await tell(502, 'Book a repair', 'How many bikes will you bring?');
      await tell(502, '2', 'Which email should get the confirmation?');
      await tell(502, 'talk to a person', 'A person will take over shortly.');
      const conversationId = await conversationOf(502);
      const handoffs = await t.schema.db('handoffs').where({ conversation_id: conversationId });
      expect(handoffs).to.have.length(1);
      expect(handoffs[0]).to.include({
        status: 'waiting',
        reason: 'intent',
        fallback_state: 'email',
      });
      const before = sent.length;
      await post(502, 'hello?');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(sent.slice(before)).to.deep.equal([]);
    });
  });

  describe('with the LLM asked when the scores are unclear (matching.llm)', () => {
    let t: TestApi;
    let bot: TelegramTestBot;
    let llm: LlmStub;
    const sent: string[] = [];
    const env: Record<string, string> = { LLM_MODEL: 'stand-in-model' };

    before(async () => {
      llm = await startLlmStub();
      env.LLM_API_URL = llm.url;
    });
    conversationSuite(env, async (edge) => {
      t = edge;
      const flow = { ...MENU_FLOW, matching: { llm: true } };
      bot = await createTelegramBot(t, { name: 'meaning-llm', flow });
      captureTelegramTexts(sent);
      return startConversationComponents(t);
    });
    after(async () => llm?.close());

    const { tell } = telegramUser(() => ({ t, bot }), sent);

    it('when an answer is about as close to two options, then the LLM picks one, the bot goes on with it, and the transcript notes the pick and the call', async () => {
      await tell(701, 'hello', 'How can I help?');
      expect(llm.requests).to.have.length(0);
      llm.reply({ content: '{"pick": "option:book"}', tokens: 48 });
      await tell(701, 'is it a repair or a question', 'How many bikes will you bring?');
      expect(llm.requests).to.have.length(1);
      expect(llm.requests[0]!.body.messages[1]!.content).to.contain(
        '<user_data name="message">\nis it a repair or a question\n</user_data>',
      );
      const conversation = await t.schema.db('conversations').where({ chat_id: '701' }).first();
      const notes = await t.schema
        .db('messages')
        .where({ conversation_id: conversation.id, message_type: 'note' })
        .orderBy('id');
      const understood = notes.find((n) => n.body.understood)?.body.understood;
      expect(understood).to.include({ kind: 'option', name: 'book', state: 'menu', by: 'llm' });
      const call = notes.find((n) => n.body.llm_call)?.body.llm_call;
      expect(call).to.include({ model: 'stand-in-model', tokens: 48, outcome: 'ok' });
      // A clear answer is matched by the scores alone: no call.
      await tell(701, '2', 'Which email should get the confirmation?');
      expect(llm.requests).to.have.length(1);
    });
  });

  describe('through an embeddings API (FLOW_MATCH_EMBEDDINGS=api)', () => {
    let t: TestApi;
    let bot: TelegramTestBot;
    let api: Awaited<ReturnType<typeof standIn>>;
    const sent: string[] = [];
    // Filled once the stand-in listens; the edge reads it when the suite starts.
    const env: Record<string, string> = { FLOW_MATCH_EMBEDDINGS: 'api' };

    before(async () => {
      api = await standIn((call, _n, res) =>
        answer(res, call.input, CONCEPTS.length + 2, concepts),
      );
      Object.assign(env, { EMBEDDINGS_API_URL: api.url, EMBEDDINGS_MODEL: 'multilingual' });
    });
    conversationSuite(env, async (edge) => {
      t = edge;
      bot = await createTelegramBot(t, { name: 'meaning-api', flow: MENU_FLOW });
      captureTelegramTexts(sent);
      return startConversationComponents(t);
    });
    after(async () => api?.close());

    const { tell } = telegramUser(() => ({ t, bot }), sent);

    it('when a user answers the English menu in Spanish, then the API\'s vectors of the text as written (no English spelling correction) pick the option, and "quiero hablar con una persona" starts the handoff', async () => {
      await tell(601, 'hola', 'How can I help?');
      await tell(601, 'quiero reparar mi bicicleta', 'How many bikes will you bring?');
      expect(
        api.calls.flatMap((c) => c.input),
        JSON.stringify(api.calls),
      ).to.include.members(['quiero reparar mi bicicleta', 'Book a repair']);
      await tell(601, 'quiero hablar con una persona', 'A person will take over shortly.');
      const conversation = await t.schema.db('conversations').where({ chat_id: '601' }).first();
      const handoffs = await t.schema.db('handoffs').where({ conversation_id: conversation.id });
      expect(handoffs.map((h) => [h.reason, h.fallback_state])).to.deep.equal([
        ['intent', 'bikes'],
      ]);
    });
  });
});
