/** The operations page's and shared helpers' pure logic: times, replays, query strings. */
import { expect } from 'chai';
import { withQuery } from '../../console/src/pages/ops-shared/page-query.ts';
import { isStale, relativeTime } from '../../console/src/pages/ops-shared/relative-time.ts';
import {
  confirmQuestion,
  parseDeadLetterEvent,
  replayBody,
  replaySummary,
} from '../../console/src/pages/operations/replay.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe('console operations view', () => {
  describe('relativeTime and isStale', () => {
    it('when a time is recent or old, then it reads in the largest whole unit', () => {
      expect(relativeTime(ago(500), NOW)).to.equal('just now');
      expect(relativeTime(ago(-3000), NOW)).to.equal('just now');
      expect(relativeTime(ago(12_000), NOW)).to.equal('12 s ago');
      expect(relativeTime(ago(3 * 60_000 + 5000), NOW)).to.equal('3 min ago');
      expect(relativeTime(ago(2 * 3_600_000), NOW)).to.equal('2 h ago');
      expect(relativeTime(ago(3 * 86_400_000), NOW)).to.equal('3 d ago');
      expect(relativeTime('not a time', NOW)).to.equal('unknown');
    });

    it('when a process was silent longer than the threshold, then it is stale', () => {
      expect(isStale(ago(5000), NOW)).to.equal(false);
      expect(isStale(ago(15_000), NOW)).to.equal(false);
      expect(isStale(ago(15_001), NOW)).to.equal(true);
      expect(isStale(ago(5000), NOW, 1000)).to.equal(true);
      expect(isStale('garbage', NOW)).to.equal(true);
    });
  });

  describe('replay', () => {
    it('when some or all are replayed, then the body and the question say which', () => {
      expect(replayBody({ ids: ['p0-1-0', 'p1-2-0'] })).to.deep.equal({
        ids: ['p0-1-0', 'p1-2-0'],
      });
      expect(replayBody({ all: true })).to.deep.equal({ all: true });
      expect(confirmQuestion('flow', { all: true })).to.equal(
        'Replay every dead letter of topic flow?',
      );
      expect(confirmQuestion('flow', { ids: ['p0-1-0'] })).to.equal(
        'Replay dead letter p0-1-0 of topic flow?',
      );
      expect(confirmQuestion('flow', { ids: ['p0-1-0', 'p1-2-0'] })).to.equal(
        'Replay 2 dead letters of topic flow?',
      );
    });

    it('when a replay answers, then the summary counts replayed and refused', () => {
      expect(replaySummary({ replayed: 3, refused: [] })).to.equal('3 replayed');
      const refused = {
        id: 'p0-1-0',
        code: 'BW_ERR_NOT_FOUND' as const,
        reason: 'no such dead letter',
      };
      expect(replaySummary({ replayed: 1, refused: [refused, refused] })).to.equal(
        '1 replayed, 2 refused',
      );
      expect(replaySummary({ replayed: 0, refused: [] })).to.equal('nothing to replay');
      // Only the first refusals are listed; the count has them all.
      expect(replaySummary({ replayed: 0, refused: [refused], refused_count: 1500 })).to.equal(
        '0 replayed, 1500 refused',
      );
    });

    it('when a dead-letter event arrives, then its topic is read; other data is ignored', () => {
      expect(parseDeadLetterEvent({ topic: 'flow', id: 'p0-1-0', code: 'X' })).to.deep.equal({
        topic: 'flow',
      });
      expect(parseDeadLetterEvent({ id: 'p0-1-0' })).to.equal(undefined);
      expect(parseDeadLetterEvent('flow')).to.equal(undefined);
    });
  });

  describe('withQuery', () => {
    it('when values are empty or need encoding, then they are left out or encoded', () => {
      expect(withQuery('/v2/collections', { limit: 50, after: undefined })).to.equal(
        '/v2/collections?limit=50',
      );
      expect(withQuery('/v2/x', { q: 'rent & ride', k: 5 })).to.equal('/v2/x?q=rent+%26+ride&k=5');
      expect(withQuery('/v2/x', { after: '' })).to.equal('/v2/x');
    });
  });
});
