/** A broadcast's CSV audience as read (src/api/broadcasts/audience.ts): ids, repeats, numbers. */
import { expect } from 'chai';
import { csvRows, whatsappNumberOf } from '../src/api/broadcasts/audience.ts';

describe('broadcast CSV audience', () => {
  it('when WhatsApp numbers are written as people write them, then those written in full are read as WhatsApp gives them, and the rest match no number', () => {
    expect(
      ['+44 7700 900001', '+44 (0)7700-900001', '0044 7700.900001', '447700900001'].map(
        whatsappNumberOf,
      ),
    ).to.deep.equal(Array(4).fill('447700900001'));
    // No country code in brackets form: kept as written, so it reaches nobody.
    expect(whatsappNumberOf('(415) 555-0100')).to.equal('(415) 555-0100');
    expect(whatsappNumberOf('ana@example.com')).to.equal('ana@example.com');
  });

  it('when a CSV repeats a number written two ways, then the second is the duplicate', async () => {
    const rows = await csvRows('chat_id,name\n+44 7700 900001,Ana\n447700900001,Ana again\n', true);
    expect(rows.map((r) => [r.chat_id, r.duplicate])).to.deep.equal([
      ['447700900001', false],
      ['447700900001', true],
    ]);
    // On other platforms an id is kept as it is.
    expect((await csvRows('chat_id\n+44 1\n')).map((r) => r.chat_id)).to.deep.equal(['+44 1']);
  });
});
