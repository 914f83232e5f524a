import { expect } from 'chai';
import { fromTelegram, fromWhatsApp } from '../src/channel/inbound.ts';
import { renderTelegram } from '../src/channel/render-telegram.ts';
import { renderWhatsApp } from '../src/channel/render-whatsapp.ts';
import { split, truncate, truncateBytes } from '../src/channel/text-limits.ts';
import type { InternalMessage } from '../src/shared/messages.ts';

const tgMessage = (extra: Record<string, unknown>) => ({
  update_id: 9,
  message: {
    message_id: 77,
    date: 1,
    chat: { id: 42 },
    from: { id: 42, first_name: 'Ana', last_name: 'Silva', language_code: 'pt' },
    ...extra,
  },
});

describe('channel: platform messages in and out', () => {
  describe('Telegram in', () => {
    it('when a text arrives, then it is a text message with the sender and a per-chat message id', () => {
      expect(fromTelegram(tgMessage({ text: 'olá' }))).to.deep.equal({
        userId: '42',
        firstName: 'Ana',
        lastName: 'Silva',
        languageHint: 'pt',
        chatId: '42',
        platformMessageId: '42:77',
        message: { message_type: 'text', text: 'olá' },
      });
    });

    it('when /start arrives (also addressed to the bot), then it is a dialog start', () => {
      expect(fromTelegram(tgMessage({ text: '/start' }))?.message).to.deep.equal({
        message_type: 'dialog',
        event: 'start',
      });
      expect(fromTelegram(tgMessage({ text: '/start@my_bot payload' }))?.message).to.deep.equal({
        message_type: 'dialog',
        event: 'start',
      });
      expect(fromTelegram(tgMessage({ text: '/starting' }))?.message).to.deep.equal({
        message_type: 'text',
        text: '/starting',
      });
    });

    it('when a button is pressed, then it is an interactive reply that must be answered', () => {
      const inbound = fromTelegram({
        update_id: 3,
        callback_query: {
          id: 'cbq1',
          from: { id: 42 },
          data: 'hours',
          message: { message_id: 5, chat: { id: -100 } },
        },
      });
      expect(inbound).to.include({
        chatId: '-100',
        userId: '42',
        callbackQueryId: 'cbq1',
        platformMessageId: 'callback:cbq1',
      });
      expect(inbound?.message).to.deep.equal({
        message_type: 'interactive_reply',
        choice_id: 'hours',
      });
    });

    it('when voice, photo, document or location arrive, then they keep their file ids', () => {
      expect(
        fromTelegram(tgMessage({ voice: { file_id: 'v1', mime_type: 'audio/ogg' } }))?.message,
      ).to.deep.equal({
        message_type: 'audio',
        media: { platform: 'telegram', file_id: 'v1', mime_type: 'audio/ogg' },
      });
      expect(
        fromTelegram(
          tgMessage({ photo: [{ file_id: 'small' }, { file_id: 'large' }], caption: 'look' }),
        )?.message,
      ).to.deep.equal({
        message_type: 'image',
        media: { platform: 'telegram', file_id: 'large' },
        caption: 'look',
      });
      expect(
        fromTelegram(tgMessage({ document: { file_id: 'd1', file_name: 'a.pdf' } }))?.message,
      ).to.include({ message_type: 'document', filename: 'a.pdf' });
      expect(
        fromTelegram(tgMessage({ location: { latitude: 1.5, longitude: 2 } }))?.message,
      ).to.deep.equal({ message_type: 'location', latitude: 1.5, longitude: 2 });
    });

    it('when an edited message arrives, then its id differs from the original so both are kept', () => {
      const edited = fromTelegram({
        update_id: 10,
        edited_message: tgMessage({ text: 'fixed' }).message,
      });
      expect(edited?.platformMessageId).to.equal('42:77:edit:10');
    });

    it('when the content is not handled (a sticker), then there is no inbound message', () => {
      expect(fromTelegram(tgMessage({ sticker: { file_id: 's' } }))).to.equal(undefined);
    });
  });

  describe('WhatsApp in', () => {
    const contact = { wa_id: '15550002222', profile: { name: 'Ana Maria Silva' } };
    it('when a text arrives, then the profile name is split into first and last name', () => {
      expect(
        fromWhatsApp({
          contact,
          message: { id: 'wamid.1', from: '15550002222', type: 'text', text: { body: 'hola' } },
        }),
      ).to.deep.equal({
        userId: '15550002222',
        firstName: 'Ana',
        lastName: 'Maria Silva',
        chatId: '15550002222',
        platformMessageId: 'wamid.1',
        message: { message_type: 'text', text: 'hola' },
      });
    });

    it('when a button or list row is picked, then it is an interactive reply with its id and title', () => {
      const button = fromWhatsApp({
        contact,
        message: {
          id: 'w2',
          from: '1',
          type: 'interactive',
          interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes' } },
        },
      });
      expect(button?.message).to.deep.equal({
        message_type: 'interactive_reply',
        choice_id: 'yes',
        title: 'Yes',
      });
      const row = fromWhatsApp({
        contact,
        message: {
          id: 'w3',
          from: '1',
          type: 'interactive',
          interactive: { type: 'list_reply', list_reply: { id: 'row-2', title: 'Two' } },
        },
      });
      expect(row?.message).to.deep.equal({
        message_type: 'interactive_reply',
        choice_id: 'row-2',
        title: 'Two',
      });
    });

    it('when media arrives, then it keeps the media id; a reaction is not handled', () => {
      expect(
        fromWhatsApp({
          message: {
            id: 'w4',
            from: '1',
            type: 'audio',
            audio: { id: 'm1', mime_type: 'audio/ogg' },
          },
        })?.message,
      ).to.deep.equal({
        message_type: 'audio',
        media: { platform: 'whatsapp', media_id: 'm1', mime_type: 'audio/ogg' },
      });
      expect(fromWhatsApp({ message: { id: 'w5', from: '1', type: 'reaction' } })).to.equal(
        undefined,
      );
    });
  });

  describe('limits', () => {
    it('when text is cut, then code points are counted and an emoji is never split', () => {
      expect(truncate('ab👍cd', 4)).to.equal('ab👍…');
      expect(truncateBytes('aé👍', 4)).to.equal('aé');
      const parts = split(`${'word '.repeat(1000)}end`, 4096);
      expect(parts.length).to.equal(2);
      expect(parts.every((p) => Array.from(p).length <= 4096)).to.be.true;
      expect(parts.join(' ')).to.equal(`${'word '.repeat(1000)}end`.replace(/\s+/g, ' '));
    });
  });

  describe('Telegram out', () => {
    it('when buttons are sent, then sendMessage carries an inline keyboard with callback data', () => {
      expect(
        renderTelegram('42', {
          message_type: 'button',
          text: 'Pick',
          buttons: [
            { id: 'a', title: 'A' },
            { id: 'b', title: 'B' },
          ],
        }),
      ).to.deep.equal([
        {
          method: 'sendMessage',
          body: {
            chat_id: '42',
            text: 'Pick',
            reply_markup: {
              inline_keyboard: [
                [{ text: 'A', callback_data: 'a' }],
                [{ text: 'B', callback_data: 'b' }],
              ],
            },
          },
        },
      ]);
    });

    it('when text is longer than 4096 characters, then it is sent as several messages', () => {
      const calls = renderTelegram('42', { message_type: 'text', text: 'x '.repeat(3000) });
      expect(calls).to.have.length(2);
      expect(calls.every((c) => c.method === 'sendMessage')).to.be.true;
    });

    it('when an image, a document or a voice note is sent, then the matching method is used', () => {
      expect(
        renderTelegram('42', {
          message_type: 'image',
          media: { url: 'https://x/a.png' },
          caption: 'c',
        }),
      ).to.deep.equal([
        { method: 'sendPhoto', body: { chat_id: '42', photo: 'https://x/a.png', caption: 'c' } },
      ]);
      expect(
        renderTelegram('42', { message_type: 'document', media: { url: 'https://x/a.pdf' } })[0]
          ?.method,
      ).to.equal('sendDocument');
      expect(
        renderTelegram('42', { message_type: 'audio', media: { url: 'https://x/a.ogg' } })[0]
          ?.method,
      ).to.equal('sendVoice');
    });

    it('when a voice note botwire made is sent, then sendVoice carries its bytes as a file', () => {
      const [call] = renderTelegram('42', {
        message_type: 'audio',
        media: {
          data_base64: Buffer.from('OggS-bytes').toString('base64'),
          mime_type: 'audio/ogg',
        },
      });
      expect(call).to.deep.include({ method: 'sendVoice', body: { chat_id: '42' } });
      expect(call?.file?.name).to.equal('voice');
      expect(Buffer.from(call!.file!.data).toString()).to.equal('OggS-bytes');
    });
  });

  describe('WhatsApp out', () => {
    const bodies = (message: InternalMessage) => renderWhatsApp('155', message).map((c) => c.body);

    it('when up to three buttons are sent, then they are reply buttons with titles cut to 20', () => {
      const [body] = bodies({
        message_type: 'button',
        text: 'Pick',
        buttons: [{ id: 'a', title: 'A very long button title indeed' }],
      });
      expect(body).to.deep.equal({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '155',
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Pick' },
          action: {
            buttons: [{ type: 'reply', reply: { id: 'a', title: 'A very long button …' } }],
          },
        },
      });
    });

    it('when a list has more than ten rows, then ten are sent; more than three buttons become a list', () => {
      const rows = Array.from({ length: 12 }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }));
      const [body] = bodies({
        message_type: 'option_list',
        text: 'Menu',
        button_text: 'Choose',
        sections: [{ title: 'S', rows }],
      });
      const interactive = (
        body as { interactive: { type: string; action: { sections: { rows: unknown[] }[] } } }
      ).interactive;
      expect(interactive.type).to.equal('list');
      expect(interactive.action.sections[0]!.rows).to.have.length(10);
      const [many] = bodies({
        message_type: 'button',
        text: 'Pick',
        buttons: rows.slice(0, 4),
      });
      expect((many as { interactive: { type: string } }).interactive.type).to.equal('list');
    });

    it('when text, image or audio is sent, then the Cloud API body types match', () => {
      expect(bodies({ message_type: 'text', text: 'hi' })[0]).to.include({
        type: 'text',
      });
      expect(
        bodies({ message_type: 'image', media: { url: 'https://x/i.png' } })[0],
      ).to.deep.include({ type: 'image', image: { link: 'https://x/i.png' } });
      expect(
        bodies({ message_type: 'audio', media: { url: 'https://x/a.ogg' } })[0],
      ).to.deep.include({ type: 'audio', audio: { link: 'https://x/a.ogg' } });
    });

    it('when a voice note botwire made is sent, then its bytes are to be uploaded first', () => {
      const [call] = renderWhatsApp('155', {
        message_type: 'audio',
        media: {
          data_base64: Buffer.from('OggS-bytes').toString('base64'),
          mime_type: 'audio/ogg',
        },
        text: 'hello',
      });
      expect(call?.body).to.deep.include({ type: 'audio', to: '155', audio: { voice: true } });
      expect(Buffer.from(call!.upload!.data).toString()).to.equal('OggS-bytes');
      expect(call?.upload?.mimeType).to.equal('audio/ogg');
    });
  });
});
