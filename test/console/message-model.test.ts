/**
 * The console's message model: transcript rows and web visitor events become the one shape the
 * message view draws, with notes of the flow set apart and unsafe or unreachable media left out.
 */
import { expect } from 'chai';
import {
  actorName,
  fromTranscriptRow,
  fromWebEvent,
  optionTitles,
  readWebEvent,
  summaryOf,
} from '../../console/src/pages/conversations/message-model.ts';
import type { TranscriptRow } from '../../console/src/api/types.ts';

function row(fields: Partial<TranscriptRow>): TranscriptRow {
  return {
    id: '7',
    direction: 'out',
    turn_id: 't1',
    message_type: 'text',
    body: {},
    status: 'sent',
    error: null,
    created_at: '2026-11-24T10:00:00.000Z',
    ...fields,
  };
}

describe('console message model', () => {
  it('when a row is a user text, then it is the user side with its words', () => {
    const view = fromTranscriptRow(
      row({ direction: 'in', body: { message_type: 'text', text: 'hi' }, status: 'received' }),
    );
    expect(view).to.deep.include({ key: '7', side: 'user', text: 'hi' });
    expect(view.delivery).to.equal(undefined);
  });

  it('when a row is a bot button message, then its buttons are kept with their ids', () => {
    const view = fromTranscriptRow(
      row({
        message_type: 'button',
        body: {
          text: 'Pick',
          buttons: [
            { id: 'a', title: 'Apples' },
            { id: 'b', title: 'Bikes' },
          ],
        },
      }),
    );
    expect(view.side).to.equal('bot');
    expect(view.buttons).to.deep.equal([
      { id: 'a', title: 'Apples' },
      { id: 'b', title: 'Bikes' },
    ]);
  });

  it('when a row is an option list, then its button text and sections become the list', () => {
    const view = fromTranscriptRow(
      row({
        message_type: 'option_list',
        body: {
          text: 'Menu',
          button_text: 'Open',
          sections: [{ title: 'Food', rows: [{ id: 'r1', title: 'Soup', description: 'hot' }] }],
        },
      }),
    );
    expect(view.list).to.deep.equal({
      button: 'Open',
      sections: [{ title: 'Food', rows: [{ id: 'r1', title: 'Soup', description: 'hot' }] }],
    });
  });

  it('when a row is a note of the flow, then it is a note with its text, not a bot message', () => {
    const view = fromTranscriptRow(
      row({ message_type: 'note', status: 'note', body: { text: 'restarted at "start"' } }),
    );
    expect(view).to.deep.include({ side: 'note', text: 'restarted at "start"' });
  });

  it('when a row is a dialog reset, then it is a note saying so', () => {
    const view = fromTranscriptRow(
      row({ direction: 'in', message_type: 'dialog', body: { event: 'reset' } }),
    );
    expect(view).to.deep.include({ side: 'note', text: 'The conversation was reset.' });
  });

  it('when a bot row failed, then the failure and its reason are shown', () => {
    const view = fromTranscriptRow(
      row({ body: { text: 'x' }, status: 'failed', error: 'BW_ERR_UPSTREAM: 403' }),
    );
    expect(view.delivery).to.deep.equal({ status: 'failed', error: 'BW_ERR_UPSTREAM: 403' });
  });

  it('when an image is known only to the platform, then it has no URL but keeps its caption', () => {
    const view = fromTranscriptRow(
      row({
        direction: 'in',
        message_type: 'image',
        body: { media: { platform: 'telegram', file_id: 'F' }, caption: 'my bike' },
      }),
    );
    expect(view.image).to.deep.equal({ caption: 'my bike' });
  });

  it('when media has a javascript: URL, then no URL is kept', () => {
    const view = fromTranscriptRow(
      row({
        message_type: 'document',
        body: { media: { url: 'javascript:alert(1)' }, filename: 'a.pdf' },
      }),
    );
    expect(view.document).to.deep.equal({ filename: 'a.pdf' });
    const web = fromWebEvent({
      id: 'out:t:0',
      conversation_id: 'c',
      direction: 'out',
      turn_id: 't',
      message_type: 'image',
      image: { url: 'javascript:alert(1)' },
      created_at: '2026-11-24T10:00:00.000Z',
    });
    expect(web.image).to.deep.equal({});
  });

  it('when a row has a type this console does not know, then it says which type it was', () => {
    const view = fromTranscriptRow(row({ message_type: 'sticker', body: {} }));
    expect(view.text).to.equal('(a sticker message)');
  });

  it('when a web echo names a pressed option, then its title comes from what the bot offered', () => {
    const offered = fromWebEvent({
      id: 'out:t1:0',
      conversation_id: 'c',
      direction: 'out',
      turn_id: 't1',
      message_type: 'button',
      text: 'Pick',
      buttons: [{ id: 'b', title: 'Bikes' }],
      created_at: '2026-11-24T10:00:00.000Z',
    });
    const press = fromWebEvent(
      {
        id: 'in:m2',
        conversation_id: 'c',
        direction: 'in',
        turn_id: 't2',
        message_type: 'interactive_reply',
        choice_id: 'b',
        created_at: '2026-11-24T10:00:01.000Z',
      },
      optionTitles([offered]),
    );
    expect(press).to.deep.include({ side: 'user', choice: { id: 'b', title: 'Bikes' } });
    expect(summaryOf(press)).to.equal('Chose Bikes');
  });

  it('when a web event lacks its id or direction, then it is not read', () => {
    const good = {
      id: 'out:t:0',
      conversation_id: 'c',
      direction: 'out',
      turn_id: 't',
      message_type: 'text',
      text: 'hi',
      created_at: '2026-11-24T10:00:00.000Z',
    };
    expect(readWebEvent(good)).to.deep.equal(good);
    expect(readWebEvent({ ...good, id: 1 })).to.equal(undefined);
    expect(readWebEvent({ ...good, direction: 'up' })).to.equal(undefined);
    expect(readWebEvent(null)).to.equal(undefined);
  });

  it('when an agent wrote a row, then a reply is on the bot side by them and a note is their internal note', () => {
    const reply = fromTranscriptRow(
      row({ body: { message_type: 'text', text: 'on it' }, sent_by: 'account:ada@example.test' }),
    );
    expect(reply).to.deep.include({ side: 'bot', text: 'on it', by: 'ada@example.test' });
    const note = fromTranscriptRow(
      row({
        message_type: 'note',
        status: 'note',
        body: { text: 'refund asked' },
        sent_by: 'token:5c1@ada@example.test',
      }),
    );
    expect(note).to.deep.include({ side: 'note', text: 'refund asked', by: 'ada@example.test' });
    expect(
      fromTranscriptRow(row({ message_type: 'note', status: 'note', body: {} })),
    ).to.not.have.property('by');
  });

  it('when the bot wrote a row first, asked by someone, then it is the bot’s, written first by them', () => {
    const first = fromTranscriptRow(
      row({
        turn_id: 'out:5f2c',
        body: { message_type: 'text', text: 'Your order shipped.' },
        sent_by: 'account:ada@example.test',
      }),
    );
    expect(first).to.deep.include({ side: 'bot', by: 'ada@example.test', writtenFirst: true });
    const reply = fromTranscriptRow(
      row({ turn_id: 'agent:h1:c1', body: { text: 'on it' }, sent_by: 'admin-key' }),
    );
    expect(reply).to.not.have.property('writtenFirst');
  });

  it('when an actor is named, then people read their email, and the admin key reads so', () => {
    expect(actorName('account:ada@example.test')).to.equal('ada@example.test');
    expect(actorName('token:9f2a@ada@example.test')).to.equal('ada@example.test');
    expect(actorName('admin-key')).to.equal('the admin key');
    expect(actorName('something-else')).to.equal('something-else');
  });
});
