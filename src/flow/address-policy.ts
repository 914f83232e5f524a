/**
 * Which addresses a flow's HTTP step may connect to. Every address that is not public on the
 * internet is refused (loopback, private, link-local, unique-local, CGNAT, multicast, unspecified,
 * reserved and documentation ranges, IPv4-mapped IPv6, the cloud metadata addresses, and the
 * addresses of this machine's own interfaces; NAT64, 6to4 and Teredo addresses by the IPv4
 * addresses they embed) unless the operator's allow-list
 * (`FLOW_HTTP_ALLOW`) names the address, a range holding it, or the host name asked for.
 * docs/security.md lists the ranges.
 */
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Why an address is refused; `undefined` from `classifyAddress` means a public address. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'metadata'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'ipv4-mapped'
  | 'own-address';

const V4: [AddressClass, string, number][] = [
  ['metadata', '169.254.169.254', 32],
  ['unspecified', '0.0.0.0', 8],
  ['loopback', '127.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['cgnat', '100.64.0.0', 10],
  ['link-local', '169.254.0.0', 16],
  ['multicast', '224.0.0.0', 4],
  // IETF protocol assignments, documentation, benchmarking, class E and broadcast.
  ['reserved', '192.0.0.0', 24],
  ['reserved', '192.0.2.0', 24],
  ['reserved', '198.18.0.0', 15],
  ['reserved', '198.51.100.0', 24],
  ['reserved', '203.0.113.0', 24],
  ['reserved', '240.0.0.0', 4],
];

const V6: [AddressClass, string, number][] = [
  ['metadata', 'fd00:ec2::254', 128],
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['ipv4-mapped', '::ffff:0:0', 96],
  // IPv4-compatible (deprecated) and IPv4-translated forms embed an IPv4 address too.
  ['reserved', '::', 96],
  ['reserved', '::ffff:0:0:0', 96],
  ['link-local', 'fe80::', 10],
  ['reserved', 'fec0::', 10],
  ['unique-local', 'fc00::', 7],
  ['multicast', 'ff00::', 8],
  ['reserved', '2001:db8::', 32],
  ['reserved', '100::', 64],
];

/** One list per class and family, in table order (so metadata wins over link-local). */
function lists(table: [AddressClass, string, number][], type: 'ipv4' | 'ipv6') {
  const byClass = new Map<AddressClass, BlockList>();
  for (const [cls, net, prefix] of table) {
    const list = byClass.get(cls) ?? new BlockList();
    list.addSubnet(net, prefix, type);
    byClass.set(cls, list);
  }
  return [...byClass.entries()];
}

// Kept apart by family: a BlockList also matches IPv4 rules against IPv4-mapped IPv6 addresses
// and the reverse, which would call every IPv4 address "ipv4-mapped".
const LISTS = { ipv4: lists(V4, 'ipv4'), ipv6: lists(V6, 'ipv6') };

/** `[::1]` as `::1`: URL host names keep IPv6 literals in brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** The eight 16-bit groups of an IPv6 address (`isIP` said it is one), a dotted tail included. */
function hextets(ip: string): number[] {
  let text = ip.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function ipv4Of(hi: number, lo: number): string {
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/**
 * The IPv4 addresses an IPv6 address carries to the IPv4 internet, whose class is its own:
 * NAT64 (64:ff9b::/96, the last 32 bits), 6to4 (2002::/16, the 32 bits after the prefix: the
 * relay delivers there) and Teredo (2001::/32: the server in bits 32-63, the client in the last
 * 32 bits, inverted).
 */
function embeddedIpv4(ip: string): string[] {
  const h = hextets(ip);
  const at = (i: number) => h[i] ?? 0;
  if (at(0) === 0x64 && at(1) === 0xff9b && h.slice(2, 6).every((x) => x === 0))
    return [ipv4Of(at(6), at(7))];
  if (at(0) === 0x2002) return [ipv4Of(at(1), at(2))];
  if (at(0) === 0x2001 && at(1) === 0)
    return [ipv4Of(at(2), at(3)), ipv4Of(~at(6) & 0xffff, ~at(7) & 0xffff)];
  return [];
}

/**
 * The class of a non-public address, or `undefined` for a public one. Anything that is not an IP
 * address at all is `reserved` (refused), so a caller's mistake fails closed.
 */
export function classifyAddress(address: string): AddressClass | undefined {
  const ip = bareHost(address);
  const family = isIP(ip);
  if (family === 0) return 'reserved';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [cls, list] of LISTS[type]) if (list.check(ip, type)) return cls;
  if (family === 4) return undefined;
  for (const inner of embeddedIpv4(ip)) {
    const cls = classifyAddress(inner);
    if (cls !== undefined) return cls;
  }
  return undefined;
}

/** The addresses of this machine's interfaces (what `os.networkInterfaces()` lists). */
export function ownAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info ? [info.address.replace(/%.*$/, '')] : []));
}

/** Decides, per host name and per address, whether a flow's HTTP step may connect. */
export interface AddressPolicy {
  /**
   * Why `address` (reached for host name `host`, at `port`) is refused, or `undefined` when it
   * may be used.
   */
  refusal(host: string, address: string, port: number): AddressClass | undefined;
}

/** A port of an allow-list entry: 1 to 65535. */
function portOf(raw: string, text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`FLOW_HTTP_ALLOW entry "${raw}" has a bad port`);
  }
  return port;
}

/**
 * The policy of an allow-list: entries are IP addresses, CIDR ranges (`10.1.0.0/16`, `fd12::/64`)
 * or host names (`crm.internal`, matched case-insensitively against the URL's host; whatever it
 * resolves to is allowed except a metadata address, which only an address or range entry allows).
 * An address or host name alone allows every port; with a port (`crm.internal:8443`,
 * `10.0.0.7:8080`, `[fd12::7]:8080`) only that one.
 * @param allow the `FLOW_HTTP_ALLOW` entries; empty refuses every non-public address.
 * @param own this machine's addresses, refused unless allowed; `ownAddresses()` by default.
 * @throws Error naming an entry that is neither an address, a range nor a host name, with or
 *   without a port.
 */
export function addressPolicy(
  allow: readonly string[],
  own: readonly string[] = ownAddresses(),
): AddressPolicy {
  const ranges = new BlockList();
  /** Per port, the addresses allowed at that port only. */
  const addressesAt = new Map<number, BlockList>();
  const hosts = new Set<string>();
  /** `<host>:<port>` of the host names allowed at one port only. */
  const hostsAt = new Set<string>();
  const addAt = (port: number, address: string, family: number): void => {
    const list = addressesAt.get(port) ?? new BlockList();
    list.addAddress(address, family === 4 ? 'ipv4' : 'ipv6');
    addressesAt.set(port, list);
  };
  for (const raw of allow) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const [net = '', bits] = entry.split('/');
    const address = bareHost(net);
    const family = isIP(address);
    const bracketed = /^\[([0-9a-f:.]+)\]:(\d{1,5})$/.exec(entry);
    const withPort = /^([a-z0-9.-]{1,253}):(\d{1,5})$/.exec(entry);
    if (bracketed && isIP(bracketed[1]!) === 6) {
      addAt(portOf(raw, bracketed[2]!), bracketed[1]!, 6);
    } else if (family !== 0) {
      const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new Error(`FLOW_HTTP_ALLOW entry "${raw}" has a bad prefix length`);
      }
      ranges.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (withPort) {
      const [, name = '', port = ''] = withPort;
      if (isIP(name) === 4) addAt(portOf(raw, port), name, 4);
      else hostsAt.add(`${name.replace(/\.$/, '')}:${portOf(raw, port)}`);
    } else if (bits === undefined && /^[a-z0-9.-]{1,253}$/.test(entry)) {
      hosts.add(entry.replace(/\.$/, ''));
    } else {
      throw new Error(`FLOW_HTTP_ALLOW entry "${raw}" is not an address, a range or a host name`);
    }
  }
  const ownSet = new Set(own.map((a) => bareHost(a).toLowerCase()));
  return {
    refusal(host, address, port) {
      const ip = bareHost(address).toLowerCase();
      const family = isIP(ip);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (family !== 0 && ranges.check(ip, type)) return undefined;
      if (family !== 0 && addressesAt.get(port)?.check(ip, type)) return undefined;
      const cls = classifyAddress(ip) ?? (ownSet.has(ip) ? 'own-address' : undefined);
      // A named host may resolve to anything but the metadata service: that takes its address.
      const name = bareHost(host).toLowerCase().replace(/\.$/, '');
      if (cls !== 'metadata' && (hosts.has(name) || hostsAt.has(`${name}:${port}`))) {
        return undefined;
      }
      return cls;
    },
  };
}
