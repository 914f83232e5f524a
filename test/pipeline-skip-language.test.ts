/**
 * LANGUAGE_HOP=when_needed without a translation or speech provider: channel and flow do the
 * language component's pass-through work themselves, and `language` is not even running.
 */
import { expect } from 'chai';
import nock from 'nock';
import { startChannel } from '../src/channel/worker.ts';
import { loadConfig } from '../src/config.ts';
import { startFlow } from '../src/flow/worker.ts';
import { VOICE_UNSUPPORTED } from '../src/language/handle.ts';
import { createLogger } from '../src/shared/logger.ts';
import {
  conversationSuite,
  createTelegramBot,
  postTelegramUpdate,
  TELEGRAM_TOKEN,
  telegramText,
  topicMessages,
  type TestApi,
} from './support/api.ts';
import { ECHO_FLOW } from './support/flows.ts';
import { waitFor } from './support/services.ts';

const TG = 'https://telegram.example.test';

describe('pipeline with LANGUAGE_HOP=when_needed and no language provider', function () {
  this.timeout(30_000);
  let t: TestApi;
  let tg: { appId: string; secret: string };
  const logger = (component: string) => createLogger({ component, level: 'silent' });

  conversationSuite({ LANGUAGE_HOP: 'when_needed' }, async (edge) => {
    t = edge;
    expect(t.config.skipLanguage).to.equal(true);
    tg = await createTelegramBot(t, { name: 'echo', flow: ECHO_FLOW });
    return [
      await startChannel(t.config, logger('channel')),
      await startFlow(t.config, logger('flow')),
    ];
  });

  afterEach(() => nock.cleanAll());

  const update = (body: Record<string, unknown>) =>
    postTelegramUpdate(t, tg.appId, tg.secret, body);
  const sendMessages = (sent: Record<string, unknown>[], times: number) =>
    nock(TG)
      .post(`/bot${TELEGRAM_TOKEN}/sendMessage`)
      .times(times)
      .reply(
        (_uri, body) => (
          sent.push(body as Record<string, unknown>),
          [200, { ok: true, result: { message_id: sent.length } }]
        ),
      );

  it('when a user writes, then the text reaches flow with its detected language and the reply comes back, nothing on the language topic', async () => {
    const sent: Record<string, unknown>[] = [];
    sendMessages(sent, 1);
    await update(
      telegramText(
        42,
        1,
        'Bonjour, je voudrais réserver une table pour ce soir, s’il vous plaît.',
        {
          first_name: 'Ana',
        },
      ),
    );
    await waitFor(() => sent.length === 1, { what: 'the echo' });
    expect(sent[0]).to.deep.equal({
      chat_id: '42',
      text: 'echo: Bonjour, je voudrais réserver une table pour ce soir, s’il vous plaît.',
    });
    const [toFlow] = await topicMessages(t.redis, t.prefix, 'flow');
    expect(toFlow).to.deep.include({
      source: 'channel',
      intent: 'user_input',
      translation: 'none',
      detected_language: 'fr',
      original_text: 'Bonjour, je voudrais réserver une table pour ce soir, s’il vous plaît.',
    });
    expect(toFlow.conversation).to.include({ user_language: 'fr', bot_language: 'en' });
    const [toChannel] = (await topicMessages(t.redis, t.prefix, 'channel')).filter(
      (m: { intent: string }) => m.intent === 'channel_out',
    );
    expect(toChannel).to.deep.include({ source: 'flow', intent: 'channel_out' });
    expect(toChannel.bot_output.conversation).to.include({ user_language: 'fr' });
    expect(await topicMessages(t.redis, t.prefix, 'language')).to.deep.equal([]);
  });

  it('when a voice message arrives, then channel tells the user voice is not supported; flow never sees it', async () => {
    const sent: Record<string, unknown>[] = [];
    sendMessages(sent, 1);
    const before = (await topicMessages(t.redis, t.prefix, 'flow')).length;
    await update({
      update_id: 2,
      message: {
        message_id: 2,
        date: 1,
        chat: { id: 88, type: 'private' },
        from: { id: 88 },
        voice: { file_id: 'voice-88', mime_type: 'audio/ogg', duration: 3 },
      },
    });
    await waitFor(() => sent.length === 1, { what: 'the notice' });
    expect(sent[0]).to.deep.equal({ chat_id: '88', text: VOICE_UNSUPPORTED });
    expect((await topicMessages(t.redis, t.prefix, 'flow')).length).to.equal(before);
  });

  it('when another process wrote the conversation state after flow cached it, then the turn is applied on the stored state, not the cached one', async () => {
    const sent: Record<string, unknown>[] = [];
    sendMessages(sent, 2);
    const say = (id: number, text: string) =>
      update({
        update_id: id,
        message: {
          message_id: id,
          date: 1,
          chat: { id: 77, type: 'private' },
          from: { id: 77 },
          text,
        },
      });
    await say(30, 'first');
    await waitFor(() => sent.length === 1, { what: 'the first echo' });
    const row = () =>
      t.schema
        .db('conversation_state as s')
        .join('conversations as c', 'c.id', 's.conversation_id')
        .where('c.chat_id', '77')
        .first('s.conversation_id', 's.version', 's.recent_turns');
    const before = await row();
    // Another flow process (this conversation's partition moved away and back) applied a turn.
    await t.schema
      .db('conversation_state')
      .where({ conversation_id: before.conversation_id })
      .update({
        version: before.version + 1,
        recent_turns: JSON.stringify([...before.recent_turns, 'turn-of-another-process']),
      });
    await say(31, 'second');
    await waitFor(() => sent.length === 2, { what: 'the second echo' });
    expect(sent[1]).to.deep.include({ text: 'echo: second' });
    const after = await row();
    expect(after.version).to.equal(before.version + 2);
    expect(after.recent_turns).to.include('turn-of-another-process');
    expect(after.recent_turns).to.have.length(before.recent_turns.length + 2);
  });

  it('when a translation or speech provider is configured, then the language hop is kept', () => {
    const base = { LANGUAGE_HOP: 'when_needed' };
    expect(loadConfig(base).skipLanguage).to.equal(true);
    expect(
      loadConfig({ ...base, TRANSLATE_API_URL: 'http://127.0.0.1:5000' }).skipLanguage,
    ).to.equal(false);
    expect(loadConfig({ ...base, SPEECH_API_URL: 'http://127.0.0.1:5001' }).skipLanguage).to.equal(
      false,
    );
    expect(loadConfig({}).skipLanguage).to.equal(false);
  });
});
