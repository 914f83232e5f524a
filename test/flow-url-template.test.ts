/** An HTTP action's URL template: values stay inside the component they stand in. */
import { expect } from 'chai';
import { renderUrl } from '../src/shared/flows/url-template.ts';

describe('flow url template', () => {
  const url = (template: string, value: unknown) => renderUrl(template, { v: value });

  it('when a path value holds / ? # @ or %2e%2e, then it stays one path segment, encoded', () => {
    for (const value of ['a/../../admin', 'x?y=1', 'x#frag', 'user@evil.test', '%2e%2e', '..%2f']) {
      const result = url('https://api.example.test/orders/{{v}}/items', value);
      expect(result.ok, value).to.equal(true);
      const parsed = new URL((result as { url: string }).url);
      expect(parsed.host).to.equal('api.example.test');
      expect(parsed.search).to.equal('');
      expect(parsed.hash).to.equal('');
      const segments = parsed.pathname.split('/');
      expect(segments, value).to.have.length(4);
      expect(decodeURIComponent(segments[2]!)).to.equal(value);
    }
  });

  it('when a value would make a path segment . or .., then the URL is refused', () => {
    for (const value of ['..', '.', '%2e%2e', '.%2E', '%2E']) {
      // A value of "%2e%2e" is encoded to %252e%252e, a plain segment; the rest are dot segments.
      const result = url('https://api.example.test/orders/{{v}}/items', value);
      if (value.includes('%')) expect(result.ok, value).to.equal(true);
      else expect(result, value).to.deep.include({ ok: false });
    }
    expect(url('https://api.example.test/a/{{v}}', '..').ok).to.equal(false);
    expect(url('https://api.example.test/a/.{{v}}', '.').ok).to.equal(false);
  });

  it('when a query value holds & = # and spaces, then it stays that one query value', () => {
    const result = url('https://api.example.test/search?q={{v}}&page=1', 'a&admin=1#x y');
    const parsed = new URL((result as { url: string }).url);
    expect(parsed.searchParams.get('q')).to.equal('a&admin=1#x y');
    expect(parsed.searchParams.get('admin')).to.equal(null);
    expect(parsed.searchParams.get('page')).to.equal('1');
  });

  it('when a value stands in the host, then it cannot add credentials, a port or a path', () => {
    const result = url('https://{{v}}/x', 'evil.test:1@127.0.0.1/');
    expect(result.ok).to.equal(false);
    const plain = url('https://{{v}}.example.test/x', 'eu');
    expect(plain).to.deep.equal({ ok: true, url: 'https://eu.example.test/x' });
  });

  it('when the template has no placeholders, then the URL is the template', () => {
    expect(url('https://api.example.test/a/../b', 'x')).to.deep.equal({
      ok: true,
      url: 'https://api.example.test/b',
    });
  });
});
