/** The address classifier and allow-list of a flow's HTTP steps, and what the URL parser makes of numeric hosts. */
import { expect } from 'chai';
import { addressPolicy, classifyAddress } from '../src/flow/address-policy.ts';

describe('flow address policy', () => {
  const rows: [string, string | undefined][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:7f00:1', 'ipv4-mapped'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['not-an-address', 'reserved'],
    ['8.8.8.8', undefined],
    ['172.32.0.1', undefined],
    ['100.128.0.1', undefined],
    ['2606:4700:4700::1111', undefined],
    ['64:ff9b::808:808', undefined],
    // 6to4: the 32 bits after 2002: are the IPv4 address its relay delivers to.
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:c0a8:101:1::1', 'private'],
    ['2002:808:808::1', undefined],
    // Teredo: the server's IPv4 address in bits 32-63, the client's inverted in the last 32.
    ['2001:0:808:808::80ff:fffe', 'loopback'],
    ['2001:0:7f00:1::f7f7:fbfb', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['2001:0:808:808::f7f7:fbfb', undefined],
  ];
  for (const [address, expected] of rows) {
    it(`when ${address} is classified, then it is ${expected ?? 'public'}`, () => {
      expect(classifyAddress(address)).to.equal(expected);
    });
  }

  it('when a URL names 127.0.0.1 in decimal, hex, octal or short form, then the parser gives 127.0.0.1, which is loopback', () => {
    for (const host of [
      '2130706433',
      '0x7f.1',
      '0x7f000001',
      '017700000001',
      '127.1',
      '0177.0.0.1',
    ]) {
      const hostname = new URL(`http://${host}:8080/`).hostname;
      expect(hostname, host).to.equal('127.0.0.1');
      expect(classifyAddress(hostname)).to.equal('loopback');
    }
    expect(classifyAddress(new URL('http://[::ffff:127.0.0.1]/').hostname)).to.equal('ipv4-mapped');
    expect(classifyAddress(new URL('http://[0:0:0:0:0:0:0:1]/').hostname)).to.equal('loopback');
  });

  it('when the allow-list is empty, then every non-public address is refused and public ones pass', () => {
    const policy = addressPolicy([], []);
    expect(policy.refusal('a.test', '127.0.0.1', 443)).to.equal('loopback');
    expect(policy.refusal('a.test', '10.0.0.5', 443)).to.equal('private');
    expect(policy.refusal('a.test', '93.184.216.34', 443)).to.equal(undefined);
  });

  it("when an address is one of this machine's own, then it is refused unless allowed", () => {
    expect(addressPolicy([], ['93.184.216.34']).refusal('a.test', '93.184.216.34', 443)).to.equal(
      'own-address',
    );
    expect(
      addressPolicy(['93.184.216.34'], ['93.184.216.34']).refusal('a.test', '93.184.216.34', 443),
    ).to.equal(undefined);
  });

  it('when the allow-list names an address, a range or a host name, then only those are let through', () => {
    const policy = addressPolicy(['127.0.0.1', '10.1.0.0/16', 'fd12::/64', 'CRM.internal'], []);
    expect(policy.refusal('x.test', '127.0.0.1', 443)).to.equal(undefined);
    expect(policy.refusal('x.test', '127.0.0.2', 443)).to.equal('loopback');
    expect(policy.refusal('x.test', '10.1.200.3', 443)).to.equal(undefined);
    expect(policy.refusal('x.test', '10.2.0.1', 443)).to.equal('private');
    expect(policy.refusal('x.test', 'fd12::9', 443)).to.equal(undefined);
    expect(policy.refusal('x.test', 'fd13::9', 443)).to.equal('unique-local');
    expect(policy.refusal('crm.internal', '10.9.9.9', 443)).to.equal(undefined);
    expect(policy.refusal('other.internal', '10.9.9.9', 443)).to.equal('private');
    expect(policy.refusal('x.test', '169.254.169.254', 443)).to.equal('metadata');
    // A host name entry never opens the metadata service; only its address can.
    expect(policy.refusal('crm.internal', '169.254.169.254', 443)).to.equal('metadata');
    expect(
      addressPolicy(['169.254.169.254'], []).refusal('x.test', '169.254.169.254', 443),
    ).to.equal(undefined);
  });

  it('when the allow-list names a host or an address with a port, then only that port is let through; without a port, every port', () => {
    const policy = addressPolicy(
      ['crm.internal:8443', '10.0.0.7:8080', '[fd12::7]:9000', 'wiki.internal'],
      [],
    );
    const cases: [string, string, number, string | undefined][] = [
      ['crm.internal', '10.9.9.9', 8443, undefined],
      ['crm.internal', '10.9.9.9', 6379, 'private'],
      ['CRM.internal.', '10.9.9.9', 8443, undefined],
      ['x.test', '10.0.0.7', 8080, undefined],
      ['x.test', '10.0.0.7', 22, 'private'],
      ['x.test', 'fd12::7', 9000, undefined],
      ['x.test', 'fd12::7', 9001, 'unique-local'],
      ['wiki.internal', '10.9.9.9', 22, undefined],
      ['crm.internal', '169.254.169.254', 8443, 'metadata'],
    ];
    for (const [host, address, port, expected] of cases)
      expect(policy.refusal(host, address, port), `${host} ${address}:${port}`).to.equal(expected);
    expect(() => addressPolicy(['crm.internal:0'], [])).to.throw(/crm\.internal:0/);
    expect(() => addressPolicy(['crm.internal:65536'], [])).to.throw(/crm\.internal:65536/);
  });

  it('when an allow-list entry is malformed, then building the policy fails naming it', () => {
    expect(() => addressPolicy(['10.0.0.0/33'], [])).to.throw(/10\.0\.0\.0\/33/);
    expect(() => addressPolicy(['http://x/'], [])).to.throw(/http:\/\/x\//);
  });
});
