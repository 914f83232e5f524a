/**
 * Choosing a WhatsApp template in the inbox (console/src/pages/inbox/template-draft.ts) and the
 * window that decides when one is needed (whatsapp-window.ts).
 */
import { expect } from 'chai';
import type { WhatsAppTemplate } from '../../console/src/api/types.ts';
import {
  approvedFor,
  NO_FILLS,
  previewOf,
  takesInWords,
  templateMessage,
  urlButtonsOf,
} from '../../console/src/pages/inbox/template-draft.ts';
import { windowClosed } from '../../console/src/pages/inbox/whatsapp-window.ts';

const template = (over: Partial<WhatsAppTemplate>): WhatsAppTemplate => ({
  channel_id: 'c1',
  name: 'order_update',
  language: 'en_US',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
    { type: 'BODY', text: 'Hi {{1}}, your order {{2}} has shipped.' },
  ],
  parameters: { header: 1, body: 2, header_media: null, buttons: 0 },
  synced_at: '2026-11-29T10:00:00.000Z',
  ...over,
});

describe('console: WhatsApp templates in the inbox', () => {
  it('when the templates are listed, then only the channel’s approved ones are offered, by name', () => {
    const offered = approvedFor(
      [
        template({ name: 'z_last' }),
        template({ name: 'pending', status: 'PENDING' }),
        template({ name: 'other_channel', channel_id: 'c2' }),
        template({ name: 'a_first' }),
      ],
      'c1',
    );
    expect(offered.map((t) => t.name)).to.deep.equal(['a_first', 'z_last']);
  });

  it('when placeholders are filled, then the preview reads as the user will, and the message goes only once each has its text', () => {
    const t = template({});
    expect(previewOf(t, ['Ana'])).to.equal('Hi Ana, your order {{2}} has shipped.');
    const fills = (header: string[], body: string[]) => ({ ...NO_FILLS, header, body });
    expect(templateMessage(t, fills(['1001'], ['Ana', ' ']))).to.equal(undefined);
    expect(templateMessage(t, fills([], ['Ana', '1001']))).to.equal(undefined);
    expect(templateMessage(t, fills(['1001'], [' Ana ', '1001']))).to.deep.equal({
      message_type: 'template',
      name: 'order_update',
      language: 'en_US',
      parameters: { header: ['1001'], body: ['Ana', '1001'] },
    });
    const plain = template({
      components: [{ type: 'BODY', text: 'Hello!' }],
      parameters: { header: 0, body: 0, header_media: null, buttons: 0 },
    });
    expect(templateMessage(plain, NO_FILLS)).to.deep.equal({
      message_type: 'template',
      name: 'order_update',
      language: 'en_US',
      parameters: {},
    });
  });

  it('when a template shows a document header and has a URL button to fill, then the message goes once the link and the address end are given, with the file name', () => {
    const t = template({
      components: [
        { type: 'HEADER', format: 'DOCUMENT' },
        { type: 'BODY', text: 'Your invoice.' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Thanks' },
            { type: 'URL', text: 'Pay', url: 'https://shop.example.com/pay/{{1}}' },
          ],
        },
      ],
      parameters: { header: 0, body: 0, header_media: 'document', buttons: 1 },
    });
    expect(takesInWords(t.parameters)).to.equal('a document link, 1 button address');
    expect(takesInWords({ header: 1, body: 2, header_media: 'image', buttons: 2 })).to.equal(
      'header 1, body 2, an image link, 2 button addresses',
    );
    expect(takesInWords({ header: 0, body: 0, header_media: null, buttons: 0 })).to.equal('none');
    expect(urlButtonsOf(t)).to.deep.equal([
      { text: 'Pay', url: 'https://shop.example.com/pay/{{1}}' },
    ]);
    const link = 'https://shop.example.com/invoices/1001.pdf';
    expect(templateMessage(t, { ...NO_FILLS, media: link })).to.equal(undefined);
    expect(templateMessage(t, { ...NO_FILLS, buttons: ['1001'] })).to.equal(undefined);
    expect(
      templateMessage(t, {
        ...NO_FILLS,
        media: ` ${link}`,
        filename: 'invoice.pdf',
        buttons: ['1001'],
      }),
    ).to.deep.equal({
      message_type: 'template',
      name: 'order_update',
      language: 'en_US',
      parameters: {
        header_media: { link, filename: 'invoice.pdf' },
        buttons: [{ text: '1001' }],
      },
    });
  });

  it('when the window’s closing time passes while the page is open, then it reads closed; elsewhere there is none', () => {
    const closes = '2026-11-29T12:00:00.000Z';
    const open = { open: true, closes_at: closes };
    expect(windowClosed(open, Date.parse(closes) - 1)).to.equal(false);
    expect(windowClosed(open, Date.parse(closes))).to.equal(true);
    expect(windowClosed({ open: false, closes_at: null }, 0)).to.equal(true);
    expect(windowClosed(null, 0)).to.equal(false);
  });
});
