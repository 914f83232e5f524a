/**
 * Voice end to end, in one process for nock's sake: edge, channel, language (with a speech
 * provider) and flow against real Redis and Postgres; stand-in Telegram, WhatsApp and audio APIs.
 */
import { expect } from 'chai';
import nock from 'nock';
import { VOICE_NOT_UNDERSTOOD } from '../src/language/voice.ts';
import { countDeadLetters } from '../src/shared/bus/dead-letters.ts';
import {
  conversationSuite,
  createTelegramBot,
  startConversationComponents,
  topicMessages,
  type TestApi,
} from './support/api.ts';
import { waitFor } from './support/services.ts';
import {
  asText,
  SPEECH,
  SPEECH_KEY,
  stubSpeech,
  stubTelegram,
  stubTranscriptions,
  whatsappMessage,
} from './support/voice-stubs.ts';

const WA = 'https://graph.example.test';
const CDN = 'https://lookaside.example.test';
const NUMBER = '700800901';

const ECHO_FLOW = {
  version: 1,
  start: 'ask',
  states: {
    ask: {
      actions: [{ send: { text: 'Say something.' } }],
      wait: { store: 'said', expect: 'text' },
      next: 'echo',
    },
    echo: {
      actions: [
        { send: { text: 'You said: {{said}}' } },
        { send: { text: 'More?', buttons: [{ id: 'more', title: 'More' }] } },
      ],
      wait: { store: 'more', expect: 'choice' },
      next: 'ask',
    },
  },
};

describe('voice (speech to text in, text to speech out)', function () {
  this.timeout(30_000);
  let t: TestApi;
  let tg: { appId: string; secret: string };

  conversationSuite(
    { SPEECH_API_URL: `${SPEECH}/v1`, SPEECH_API_KEY: SPEECH_KEY },
    async (edge) => {
      t = edge;
      tg = await createTelegramBot(t, { name: 'echo', flow: ECHO_FLOW });
      return startConversationComponents(t);
    },
  );

  afterEach(() => nock.cleanAll());

  const update = (updateId: number, chatId: number, content: Record<string, unknown>) =>
    t.call('POST', `/v2/callback/telegram/${tg.appId}`, {
      auth: false,
      headers: { 'x-telegram-bot-api-secret-token': tg.secret },
      body: {
        update_id: updateId,
        message: {
          message_id: updateId,
          date: 1,
          chat: { id: chatId, type: 'private' },
          from: { id: chatId, first_name: 'Ana' },
          ...content,
        },
      },
    });
  const voiceUpdate = (updateId: number, chatId: number, fileId: string) =>
    update(updateId, chatId, { voice: { file_id: fileId, mime_type: 'audio/ogg', duration: 2 } });

  const flowInputs = async (chatId: string) =>
    (await topicMessages(t.redis, t.prefix, 'flow')).filter(
      (m) => m.conversation.chat_id === chatId,
    );

  it('when a Telegram user speaks, then the flow gets the words with voice: true and the reply comes back as a voice note, buttons as they were', async () => {
    const calls = stubTelegram('v61');
    await update(1, 61, { text: 'hi' });
    await waitFor(() => calls.length === 1, { what: 'the first question' });
    expect(calls[0]!.path).to.equal('sendMessage');

    const heard = stubTranscriptions([[200, { text: ' book a table ' }]]);
    const spoken = stubSpeech('You said: book a table', 'OggS-voice-out-61');
    await voiceUpdate(2, 61, 'v61');
    await waitFor(() => calls.length === 3, { what: 'the voice reply and the buttons' });

    expect(heard[0]).to.contain('OggS-v61').and.contain('whisper-1').and.contain('voice.ogg');
    const input = (await flowInputs('61')).find((m) => m.voice === true);
    expect(input).to.deep.include({
      voice: true,
      message: { message_type: 'text', text: 'book a table' },
      original_text: 'book a table',
    });
    expect(spoken.isDone()).to.be.true;
    expect(calls.map((c) => c.path)).to.deep.equal(['sendMessage', 'sendVoice', 'sendMessage']);
    expect(calls[1]!.body).to.contain('OggS-voice-out-61').and.contain('name="voice"');
    expect(calls[1]!.body).to.contain('name="chat_id"\r\n\r\n61');
    expect(JSON.parse(calls[2]!.body)).to.deep.include({
      text: 'More?',
      reply_markup: { inline_keyboard: [[{ text: 'More', callback_data: 'more' }]] },
    });

    const row = await t.schema
      .db('messages')
      .where({ direction: 'out', message_type: 'audio' })
      .first('body', 'status');
    expect(row.status).to.equal('sent');
    expect(row.body).to.deep.equal({
      message_type: 'audio',
      media: { inline: true, mime_type: 'audio/ogg', bytes: 'OggS-voice-out-61'.length },
      text: 'You said: book a table',
    });
  });

  it('when a WhatsApp user speaks, then the media is fetched with the token, and the reply is uploaded and sent as audio', async () => {
    const created = await t.call('POST', '/v2/bots', {
      body: {
        name: 'wa echo',
        flow: ECHO_FLOW,
        channel: {
          type: 'whatsapp',
          details: { phone_number_id: NUMBER, access_token: 'wa-token' },
        },
      },
    });
    expect(created.status).to.equal(201);
    const sent: Record<string, unknown>[] = [];
    let uploaded = '';
    nock(WA)
      .post(`/v21.0/${NUMBER}/messages`)
      .times(4)
      .reply((_uri, body) => {
        sent.push(body as Record<string, unknown>);
        return [200, { messages: [{ id: `wamid.out${sent.length}` }] }];
      })
      .post(`/v21.0/${NUMBER}/media`)
      .matchHeader('authorization', 'Bearer wa-token')
      .reply((_uri, body) => ((uploaded = asText(body)), [200, { id: 'uploaded-1' }]))
      .get('/v21.0/media-1')
      .matchHeader('authorization', 'Bearer wa-token')
      .reply(200, {
        messaging_product: 'whatsapp',
        id: 'media-1',
        url: `${CDN}/v/media-1?token=abc`,
        mime_type: 'audio/ogg; codecs=opus',
        file_size: 13,
      });
    nock(CDN)
      .get('/v/media-1')
      .query({ token: 'abc' })
      .matchHeader('authorization', 'Bearer wa-token')
      .reply(200, Buffer.from('OggS-media-1'));
    const inbound = (id: string, message: Record<string, unknown>) =>
      t.call('POST', '/callback', {
        auth: false,
        body: whatsappMessage(NUMBER, '166', id, message),
      });
    await inbound('wamid.v1', { type: 'text', text: { body: 'hi' } });
    await waitFor(() => sent.length === 1, { what: 'the first question' });

    const heard = stubTranscriptions([[200, { text: 'two bikes please' }]]);
    stubSpeech('You said: two bikes please', 'OggS-voice-out-166');
    await inbound('wamid.v2', {
      type: 'audio',
      audio: { id: 'media-1', mime_type: 'audio/ogg; codecs=opus', voice: true },
    });
    await waitFor(() => sent.length === 3, { what: 'the voice reply and the buttons' });

    expect(heard[0]).to.contain('OggS-media-1').and.contain('voice.ogg');
    expect(uploaded).to.contain('OggS-voice-out-166').and.contain('whatsapp');
    expect(sent[1]).to.deep.include({
      to: '166',
      type: 'audio',
      audio: { voice: true, id: 'uploaded-1' },
    });
    expect(sent[2]).to.deep.include({ type: 'interactive' });
  });

  it('when a transcript holds U+0000 and a lone surrogate, then the flow gets the words mended', async () => {
    const calls = stubTelegram('v69');
    stubTranscriptions([[200, { text: ' book\u0000 a table \uD800' }]]);
    stubSpeech('Say something.', 'OggS-voice-out-69');
    await voiceUpdate(90, 69, 'v69');
    const input = await waitFor(async () => (await flowInputs('69')).find((m) => m.voice === true));
    expect(input.message).to.deep.equal({ message_type: 'text', text: 'book a table \uFFFD' });
    // The conversation's reply is sent before the test ends: left in flight, it would reach the
    // next test's stand-ins (its speech and send stubs) and be counted as that test's reply.
    await waitFor(() => calls.length === 1, { what: 'the reply' });
    expect(calls[0]!.path).to.equal('sendVoice');
  });

  it('when transcription answers 500 once, then the voice message is retried and understood', async () => {
    const calls = stubTelegram('v62', { times: 2 });
    const heard = stubTranscriptions([
      [500, { error: { message: 'overloaded' } }],
      [200, { text: 'hello there' }],
    ]);
    stubSpeech('Say something.', 'OggS-voice-out-62');
    await voiceUpdate(3, 62, 'v62');
    await waitFor(() => calls.length === 1, { what: 'the reply' });
    expect(heard).to.have.length(2);
    expect(calls[0]!.path).to.equal('sendVoice');
    const inputs = await flowInputs('62');
    expect(inputs).to.have.length(1);
    expect(inputs[0]).to.deep.include({ voice: true, original_text: 'hello there' });
  });

  it('when the provider refuses the audio (400), then the user is told it could not be understood, without a retry', async () => {
    const calls = stubTelegram('v63', { times: 3 });
    const heard = stubTranscriptions([
      [400, { error: { message: 'Invalid file format.' } }],
      [200, { text: 'never asked' }],
    ]);
    await voiceUpdate(4, 63, 'v63');
    await waitFor(() => calls.length === 1, { what: 'the notice' });
    expect(calls[0]!.path).to.equal('sendMessage');
    expect(JSON.parse(calls[0]!.body)).to.deep.equal({ chat_id: '63', text: VOICE_NOT_UNDERSTOOD });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard).to.have.length(1);
    expect(await flowInputs('63')).to.deep.equal([]);
  });

  it('when transcription keeps failing with 500, then after three tries the user is told, and nothing is dead-lettered', async () => {
    const calls = stubTelegram('v64', { times: 4 });
    const heard = stubTranscriptions([
      [500, {}],
      [502, {}],
      [503, {}],
      [200, { text: 'too late' }],
    ]);
    await voiceUpdate(5, 64, 'v64');
    await waitFor(() => calls.length === 1, { what: 'the notice' });
    expect(JSON.parse(calls[0]!.body)).to.deep.equal({ chat_id: '64', text: VOICE_NOT_UNDERSTOOD });
    expect(heard).to.have.length(3);
    expect(
      await countDeadLetters(t.redis, t.prefix, 'language', t.config.stream.partitions),
    ).to.equal(0);
  });

  it('when speech synthesis fails, then the reply goes as text', async () => {
    const calls = stubTelegram('v65');
    stubTranscriptions([[200, { text: 'good morning' }]]);
    const busy = nock(SPEECH)
      .post('/v1/audio/speech')
      .reply(503, { error: { message: 'busy' } });
    await voiceUpdate(6, 65, 'v65');
    await waitFor(() => calls.length === 1, { what: 'the reply' });
    expect(calls[0]!.path).to.equal('sendMessage');
    expect(JSON.parse(calls[0]!.body)).to.deep.equal({ chat_id: '65', text: 'Say something.' });
    expect(busy.isDone(), 'speech was asked for').to.be.true;
  });

  it('when a voice message is larger than 25 MiB, then it is not downloaded and the user is told', async () => {
    const calls = stubTelegram('v66', { fileSize: 30 * 1024 * 1024 });
    const heard = stubTranscriptions([[200, { text: 'never asked' }]]);
    await voiceUpdate(7, 66, 'v66');
    await waitFor(() => calls.length === 1, { what: 'the notice' });
    expect(JSON.parse(calls[0]!.body)).to.deep.equal({ chat_id: '66', text: VOICE_NOT_UNDERSTOOD });
    expect(heard).to.have.length(0);
    expect(
      nock.pendingMocks().some((m) => m.includes('/file/bot')),
      'file not fetched',
    ).to.be.true;
  });

  it('when the synthesized audio is larger than 1 MiB, then the reply goes as text', async () => {
    const calls = stubTelegram('v67');
    stubTranscriptions([[200, { text: 'tell me a long story' }]]);
    const big = nock(SPEECH)
      .post('/v1/audio/speech')
      .reply(200, Buffer.alloc(1024 * 1024 + 1, 1), { 'content-type': 'audio/ogg' });
    await voiceUpdate(8, 67, 'v67');
    await waitFor(() => calls.length === 1, { what: 'the reply' });
    expect(JSON.parse(calls[0]!.body)).to.deep.equal({ chat_id: '67', text: 'Say something.' });
    expect(big.isDone(), 'speech was asked for').to.be.true;
  });

  it('when the user does not accept voice notes (VOICE_MESSAGES_FORBIDDEN), then the reply goes as text', async () => {
    const calls = stubTelegram('v68', { refuseVoice: true });
    stubTranscriptions([[200, { text: 'good evening' }]]);
    stubSpeech('Say something.', 'OggS-voice-out-68');
    await voiceUpdate(9, 68, 'v68');
    await waitFor(() => calls.length === 2, { what: 'the voice note and the text' });
    expect(calls.map((c) => c.path)).to.deep.equal(['sendVoice', 'sendMessage']);
    expect(JSON.parse(calls[1]!.body)).to.deep.equal({ chat_id: '68', text: 'Say something.' });
  });
});
