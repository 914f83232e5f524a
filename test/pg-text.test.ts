import { expect } from 'chai';
import { storable, storableDeep, storableJson } from '../src/shared/pg-text.ts';

describe('text Postgres can store', () => {
  it('storable drops U+0000 and replaces lone surrogates, keeping pairs', () => {
    expect(storable('a\u0000b \uD800 c \uDC00 d 😀')).to.equal('ab \uFFFD c \uFFFD d 😀');
  });

  it('when nothing needs mending, then storableDeep returns the very same object', () => {
    const value = { text: 'plain 😀', list: ['a', { b: 'c' }], n: 1, none: null };
    expect(storableDeep(value)).to.equal(value);
  });

  it('when a nested string needs mending, then storableDeep mends a copy and leaves the input as it was', () => {
    const value = { text: 'ok', list: ['x\u0000y', { deep: '\uDBFF!' }], n: 2 };
    const mended = storableDeep(value);
    expect(mended).to.deep.equal({ text: 'ok', list: ['xy', { deep: '\uFFFD!' }], n: 2 });
    expect(Array.isArray(mended.list)).to.be.true;
    expect(value.list[0]).to.equal('x\u0000y');
    expect((value.list[1] as { deep: string }).deep).to.equal('\uDBFF!');
  });

  it('when an object key needs mending, then storableDeep mends it in a copy, keeping the order of the keys', () => {
    const value = { a: 1, 'b\u0000c': { 'd\uDC00': 'e' }, f: 'g' };
    const mended = storableDeep(value);
    expect(mended).to.deep.equal({ a: 1, bc: { 'd\uFFFD': 'e' }, f: 'g' });
    expect(Object.keys(mended)).to.deep.equal(['a', 'bc', 'f']);
    expect(Object.keys(value)).to.deep.equal(['a', 'b\u0000c', 'f']);
  });

  it("when a copy is made, then a key named __proto__ stays an own key and the prototype stays Object's", () => {
    const value = JSON.parse('{"a\\u0000":1,"__proto__":{"isAdmin":true}}') as Record<
      string,
      unknown
    >;
    const mended = storableDeep(value);
    expect(Object.keys(mended)).to.deep.equal(['a', '__proto__']);
    expect(Object.getPrototypeOf(mended)).to.equal(Object.prototype);
    expect((mended as { isAdmin?: boolean }).isAdmin).to.equal(undefined);
    expect(JSON.stringify(mended)).to.equal('{"a":1,"__proto__":{"isAdmin":true}}');
  });

  it('storableJson writes JSON without the escapes jsonb refuses', () => {
    expect(storableJson({ a: '\u0000', b: ['\uD83D'] })).to.equal('{"a":"","b":["\uFFFD"]}');
  });
});
