/** How every console page reads a failed admin API call (console/src/api/api-error.ts). */
import { expect } from 'chai';
import {
  ApiError,
  apiErrorOf,
  describeError,
  errorText,
  isSignedOut,
  networkError,
} from '../../console/src/api/api-error.ts';

describe('console API errors', () => {
  it('when the body is the catalogue shape, then its code, message and details are kept', () => {
    const body = {
      error: {
        code: 'BW_ERR_DOCUMENT_TOO_LARGE',
        message: 'big.pdf is over 50 MiB',
        details: { file: 'big.pdf' },
      },
    };
    const error = apiErrorOf(413, body);
    expect(error).to.be.instanceOf(ApiError);
    expect(error).to.include({ status: 413, code: 'BW_ERR_DOCUMENT_TOO_LARGE' });
    expect(error.message).to.equal('big.pdf is over 50 MiB');
    expect(error.details).to.deep.equal({ file: 'big.pdf' });
    expect(error.retryAfterS).to.equal(undefined);
  });

  it('when the body is not the catalogue shape, then the status is named', () => {
    for (const body of ['<html>Bad gateway</html>', '', { error: 'x' }, null, undefined]) {
      const error = apiErrorOf(502, body);
      expect(error.code, JSON.stringify(body)).to.equal('BW_ERR_HTTP_502');
      expect(error.message, JSON.stringify(body)).to.contain('502');
    }
  });

  it('when the server says Retry-After, then the seconds are kept; nonsense is not', () => {
    const body = { error: { code: 'BW_ERR_AUTH_RATE_LIMITED', message: 'wait' } };
    expect(apiErrorOf(429, body, '30').retryAfterS).to.equal(30);
    expect(apiErrorOf(429, body, 'soon').retryAfterS).to.equal(undefined);
    expect(apiErrorOf(429, body, null).retryAfterS).to.equal(undefined);
  });

  it('when any value is thrown, then it is described with a code and a message', () => {
    const refused = new ApiError(401, 'BW_ERR_UNAUTHORIZED', 'sign in');
    expect(describeError(refused)).to.deep.equal({
      code: 'BW_ERR_UNAUTHORIZED',
      message: 'sign in',
    });
    expect(describeError(new TypeError('Failed to fetch'))).to.deep.equal({
      code: 'BW_ERR_NETWORK',
      message: 'Failed to fetch',
    });
    expect(errorText(refused)).to.equal('BW_ERR_UNAUTHORIZED: sign in');
    expect(errorText(new Error('boom'))).to.equal('boom');
    expect(isSignedOut(refused)).to.equal(true);
    expect(isSignedOut(new ApiError(403, 'BW_ERR_ORIGIN_REFUSED', 'no'))).to.equal(false);
  });

  it('when a request gets no answer, then it is a BW_ERR_NETWORK with status 0', () => {
    const error = networkError(new TypeError('Failed to fetch'));
    expect(error).to.include({ status: 0, code: 'BW_ERR_NETWORK' });
    expect(error.message).to.contain('Failed to fetch');
  });
});
