/**
 * The inbox's plain logic: who holds a handoff (an account under any of its credentials, the
 * admin key by its actor), a waiting time that ticks from the server's figure, status texts, live
 * events read defensively, and reply buttons typed one a line.
 */
import { expect } from 'chai';
import {
  buttonsFromLines,
  durationText,
  isHolder,
  personOf,
  readLiveHandoff,
  statusText,
  waitedSeconds,
} from '../../console/src/pages/inbox/handoff-model.ts';
import { EMPTY, messageOf, type Draft } from '../../console/src/pages/inbox/reply-draft.ts';

const ada = { actor: 'account:ada@example.test', account_id: 'acc-ada' };
const key = { actor: 'admin-key', account_id: null };

describe('console inbox model', () => {
  it('when an account claimed, then it holds the handoff under any of its credentials, and nobody else does', () => {
    const claimed = {
      status: 'claimed' as const,
      claimed_by: 'token:t1@ada@example.test',
      claimed_account: 'acc-ada',
    };
    expect(isHolder(claimed, ada)).to.equal(true);
    expect(
      isHolder(claimed, { actor: 'account:ben@example.test', account_id: 'acc-ben' }),
    ).to.equal(false);
    expect(isHolder(claimed, key)).to.equal(false);
    expect(isHolder({ ...claimed, status: 'waiting' }, ada)).to.equal(false);
  });

  it('when the admin key claimed, then it holds by its actor', () => {
    const claimed = { status: 'claimed' as const, claimed_by: 'admin-key', claimed_account: null };
    expect(isHolder(claimed, key)).to.equal(true);
    expect(isHolder(claimed, ada)).to.equal(false);
  });

  it('when a handoff waits, then its time ticks from the fetch; once claimed, it stands', () => {
    const fetched = 1_000_000;
    expect(waitedSeconds({ status: 'waiting', waiting_s: 65 }, fetched, fetched + 10_400)).to.equal(
      75,
    );
    expect(waitedSeconds({ status: 'waiting', waiting_s: 65 }, fetched, fetched - 5_000)).to.equal(
      65,
    );
    expect(waitedSeconds({ status: 'claimed', waiting_s: 65 }, fetched, fetched + 10_000)).to.equal(
      65,
    );
    expect(durationText(9)).to.equal('9 s');
    expect(durationText(65)).to.equal('1 min 05 s');
    expect(durationText(3_725)).to.equal('1 h 02 min');
  });

  it('when statuses are shown, then they say who holds it and how it ended', () => {
    const base = {
      claimed_by: null,
      claimed_account: null,
      return_state: null,
      fallback_state: null,
    };
    expect(statusText({ ...base, status: 'waiting' }, ada)).to.equal('Waiting for an agent');
    expect(
      statusText(
        {
          ...base,
          status: 'claimed',
          claimed_by: 'account:ben@example.test',
          claimed_account: 'b',
        },
        ada,
      ),
    ).to.equal('Claimed by ben@example.test');
    expect(
      statusText(
        {
          ...base,
          status: 'claimed',
          claimed_by: 'account:ada@example.test',
          claimed_account: 'acc-ada',
        },
        ada,
      ),
    ).to.equal('Claimed by you');
    expect(statusText({ ...base, status: 'returned', return_state: 'menu' }, ada)).to.equal(
      'Handed back to the bot at menu',
    );
    expect(personOf({ first_name: 'Ana', last_name: null, chat_id: '42' })).to.equal('Ana');
    expect(personOf({ first_name: null, chat_id: '42' })).to.equal('42');
  });

  it('when a live event lacks what the inbox needs, then it is ignored', () => {
    const good = {
      app_id: 'a',
      conversation_id: 'c',
      handoff_id: 'h',
      status: 'claimed',
      queue: null,
      at: '2026-11-25T01:00:00Z',
    };
    expect(readLiveHandoff(good)).to.deep.equal(good);
    expect(readLiveHandoff({ ...good, status: 'lost' })).to.equal(undefined);
    expect(readLiveHandoff({ ...good, handoff_id: 3 })).to.equal(undefined);
    expect(readLiveHandoff('x')).to.equal(undefined);
  });

  it('when buttons are typed one a line, then blank lines are dropped and ids follow their order', () => {
    expect(buttonsFromLines('Yes\n\n  No thanks \n')).to.deep.equal([
      { id: 'b1', title: 'Yes' },
      { id: 'b2', title: 'No thanks' },
    ]);
  });
});

describe('console inbox reply draft', () => {
  const draft = (fields: Partial<Draft>): Draft => ({ ...EMPTY, ...fields });

  it('when a draft lacks what its kind needs, then there is nothing to send', () => {
    expect(messageOf(draft({ text: '   ' }))).to.equal(undefined);
    expect(messageOf(draft({ kind: 'button', text: 'Pick one', buttons: '\n' }))).to.equal(
      undefined,
    );
    expect(messageOf(draft({ kind: 'image', caption: 'no url' }))).to.equal(undefined);
  });

  it('when a draft is complete, then its message is trimmed and carries only what was given', () => {
    expect(messageOf(draft({ text: ' hi ' }))).to.deep.equal({ message_type: 'text', text: 'hi' });
    expect(messageOf(draft({ kind: 'button', text: 'Pick', buttons: 'Yes\nNo' }))).to.deep.equal({
      message_type: 'button',
      text: 'Pick',
      buttons: [
        { id: 'b1', title: 'Yes' },
        { id: 'b2', title: 'No' },
      ],
    });
    expect(
      messageOf(draft({ kind: 'document', url: 'https://x.test/a.pdf', filename: 'a.pdf' })),
    ).to.deep.equal({ message_type: 'document', url: 'https://x.test/a.pdf', filename: 'a.pdf' });
    expect(
      messageOf(draft({ kind: 'image', url: 'https://x.test/a.png', caption: 'the label' })),
    ).to.deep.equal({ message_type: 'image', url: 'https://x.test/a.png', caption: 'the label' });
  });
});
