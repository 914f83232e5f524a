/**
 * A broadcast's message filled for each recipient (src/shared/broadcasts/placeholders.ts): texts,
 * and a WhatsApp template's parameters, its media header's link and URL buttons' ends included.
 */
import { expect } from 'chai';
import { personalize, placeholderPaths } from '../src/shared/broadcasts/placeholders.ts';
import type { InternalMessage } from '../src/shared/messages.ts';

const invoice: InternalMessage = {
  message_type: 'template',
  name: 'invoice',
  language: 'en_US',
  text: 'Hi {{name}}, your invoice.',
  parameters: {
    body: ['{{name}}'],
    header_media: {
      type: 'document',
      link: 'https://shop.example.com/invoices/{{order}}.pdf',
      filename: 'invoice-{{order}}.pdf',
    },
    buttons: [{ index: 0, text: 'pay/{{order}}' }],
  },
};

describe('broadcasts: a message filled for each recipient', () => {
  it('when a template has placeholders in its body, media link, file name and URL button, then each is filled from the recipient’s values', () => {
    expect(placeholderPaths(invoice)).to.deep.equal(['name', 'order']);
    expect(personalize(invoice, { name: 'Ana', order: '1001' })).to.deep.equal({
      message: {
        ...invoice,
        text: 'Hi Ana, your invoice.',
        parameters: {
          body: ['Ana'],
          header_media: {
            type: 'document',
            link: 'https://shop.example.com/invoices/1001.pdf',
            filename: 'invoice-1001.pdf',
          },
          buttons: [{ index: 0, text: 'pay/1001' }],
        },
      },
    });
  });

  it('when a value is missing, or would put a space in the link or the button’s address, then the recipient is skipped with the reason', () => {
    expect(personalize(invoice, { name: 'Ana' })).to.deep.equal({
      skip: 'missing_value',
      path: 'order',
    });
    expect(personalize(invoice, { name: 'Ana', order: '10 01' })).to.deep.include({
      skip: 'invalid_value',
      path: 'header_media',
    });
    const buttonOnly: InternalMessage = {
      ...invoice,
      parameters: { buttons: [{ index: 1, text: '{{order}}' }] },
    };
    expect(personalize(buttonOnly, { name: 'Ana', order: 'a b' })).to.deep.include({
      skip: 'invalid_value',
      path: 'buttons/0',
    });
  });
});
