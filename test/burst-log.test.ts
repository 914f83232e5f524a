import { expect } from 'chai';
import { BurstLog } from '../src/api/burst-log.ts';
import { capturingLogger } from './support/logs.ts';

describe('warnings logged a line per burst', () => {
  it('when the same warning comes many times in a window, then one line is logged, and the next says how many were held back', () => {
    const { logger, lines } = capturingLogger({ component: 'api', level: 'debug' });
    let now = 0;
    const log = new BurstLog(logger, { windowMs: 1000, now: () => now });
    for (let i = 0; i < 50; i += 1) log.warn('BW_ERR_UNAVAILABLE', { reason: 'x' }, 'refusing');
    log.warn('bot-backlog', { reason: 'y' }, 'uncounted');
    now = 1000;
    log.warn('BW_ERR_UNAVAILABLE', { reason: 'x' }, 'refusing');
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map((l) => [l.msg, l.held_back_before])).to.deep.equal([
      ['refusing', 0],
      ['uncounted', 0],
      ['refusing', 49],
    ]);
    expect(logged.every((l) => !('stack' in l) && !('err' in l))).to.equal(true);
  });
});
