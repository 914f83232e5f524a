/** A broadcast's plan in words (console/src/pages/broadcasts/broadcast-words.ts). */
import { expect } from 'chai';
import {
  limitPlanInWords,
  skippedInWords,
} from '../../console/src/pages/broadcasts/broadcast-words.ts';

describe('console: a broadcast in words', () => {
  it('when a template broadcast writes first to more users than the number has room for today, then it says over how many days, from when', () => {
    const words = limitPlanInWords({
      limit: 1000,
      used: 400,
      starting: 2500,
      days: [
        { from: '2026-12-01T09:00:00Z', users: 600 },
        { from: '2026-12-02T09:00:00Z', users: 1000 },
        { from: '2026-12-03T09:00:00Z', users: 900 },
      ],
    });
    expect(words).to.match(
      /^It writes first to 2,500 users whose 24-hour window is closed; this number may do that for 1,000 users a day, and did for 400 in the last 24 hours\. It is sent over 3 days: 600 from Dec 1, 2026, .+, 1,000 from Dec 2, 2026, .+, 900 from Dec 3, 2026, .+\.$/,
    );
    expect(
      limitPlanInWords({
        limit: 250,
        used: 0,
        starting: 2,
        days: [{ from: '2026-12-01T09:00:00Z', users: 2 }],
      }),
    ).to.match(/: all of them at once\.$/);
    // Free text, or every window open: nothing to say.
    expect(limitPlanInWords(undefined)).to.equal('');
    expect(limitPlanInWords({ limit: 250, used: 9, starting: 0, days: [] })).to.equal('');
    expect(skippedInWords({ opted_out: 2, window_closed: 1 })).to.equal(
      '2 opted out, 1 WhatsApp window closed',
    );
  });
});
