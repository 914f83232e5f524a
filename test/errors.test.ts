import { expect } from 'chai';
import { BotwireError, isTransient } from '../src/shared/errors.ts';

const sqlError = (code: string): Error => Object.assign(new Error(`sql ${code}`), { code });

describe('isTransient: whether the same statement may succeed if tried again', () => {
  it('when Postgres fails for a while (deadlock, serialization, statement timeout, shutdown, an outage), then it is transient', () => {
    for (const code of ['40P01', '40001', '57014', '57P01', '55P03', '53300', '08006'])
      expect(isTransient(sqlError(code)), code).to.equal(true);
    expect(isTransient(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).to.equal(
      true,
    );
    expect(isTransient(new BotwireError('BW_ERR_UNAVAILABLE', 'down'))).to.equal(true);
  });

  it('when the statement itself is at fault (a foreign key, bad text, a check), then it is not', () => {
    for (const code of ['23503', '22P05', '23514', '42P01'])
      expect(isTransient(sqlError(code)), code).to.equal(false);
    expect(isTransient(new Error('no code'))).to.equal(false);
  });
});
