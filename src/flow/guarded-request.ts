/**
 * One outbound HTTP call of a flow, safe by default: the address is checked after DNS resolution
 * and the connection is made to the address that was checked (the check is the socket's own
 * `lookup`, so a second, different DNS answer cannot slip in between), on the first request and
 * on every redirect. Redirects are followed here, at most `maxRedirects`; across origins the
 * flow's headers and the body are dropped, and 303 (and 301/302 after a POST) turn into a GET
 * without a body. The answer is read up to `maxBodyBytes` while it streams; a larger one is
 * refused without reading the rest.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
// The modules, not their functions: `request` is read at each call (see `channel/json-post.ts`).
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { BotwireError } from '../shared/errors.ts';
import { bareHost, type AddressPolicy } from './address-policy.ts';

export interface GuardedRequest {
  method: string;
  url: string;
  /** The flow's headers; dropped when a redirect leaves the origin. */
  headers: Record<string, string>;
  /** Sent as JSON; dropped by a redirect to another origin or one that turns into a GET. */
  body?: string;
  /** Ends the whole call (every redirect and the body), e.g. `AbortSignal.timeout`. */
  signal: AbortSignal;
  policy: AddressPolicy;
  /** Largest answer read (bytes). */
  maxBodyBytes: number;
  /** Redirects followed before the call is refused. */
  maxRedirects: number;
}

export interface GuardedResponse {
  status: number;
  contentType: string;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function refused(message: string): BotwireError {
  return new BotwireError('BW_ERR_FLOW_HTTP_REFUSED', message);
}

/** Resolves once, refuses if any address is refused, and hands the socket what was checked. */
function guardedLookup(policy: AddressPolicy, host: string, port: number): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const why = policy.refusal(host, address, port);
        if (why) return callback(refused(`${host} is not a public address (${why})`), '', 0);
      }
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
      // With autoSelectFamily Node asks for every address; otherwise for one.
      if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/** The port `url` connects to. */
function portOf(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

/** The host of `url` if it is an IP literal (which Node connects to without any lookup). */
function checkLiteral(url: URL, policy: AddressPolicy): void {
  const host = bareHost(url.hostname);
  if (isIP(host) === 0) return;
  const why = policy.refusal(url.hostname, host, portOf(url));
  if (why) throw refused(`${url.hostname} is not a public address (${why})`);
}

async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  input: GuardedRequest,
): Promise<IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused(`${url.protocol} URLs are not called`);
  }
  checkLiteral(url, input.policy);
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(body === undefined && method !== 'GET' ? { 'content-length': '0' } : {}),
      },
      lookup: guardedLookup(input.policy, url.hostname, portOf(url)),
      // A socket of its own: a pooled one could outlive the check it was made under.
      agent: false,
      signal: input.signal,
    });
    req.once('response', resolve);
    req.on('error', reject);
    req.end(body);
  });
}

/** The body, refused as soon as more than `max` bytes have arrived. */
function readCapped(response: IncomingMessage, max: number): Promise<Buffer> {
  const tooLarge = (): BotwireError =>
    new BotwireError('BW_ERR_FLOW_BUDGET', `the answer is larger than ${max} bytes`);
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    response.destroy();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > max) {
        response.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    response.once('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
    response.once('close', () => {
      if (!response.complete) reject(new Error('the answer was cut off'));
    });
  });
}

/**
 * Makes the call, following redirects under the same checks.
 * @throws BotwireError `BW_ERR_FLOW_HTTP_REFUSED` (an address or scheme refused, too many
 *   redirects) or `BW_ERR_FLOW_BUDGET` (an answer over `maxBodyBytes`); network errors and the
 *   signal's abort as they come.
 */
export async function guardedRequest(input: GuardedRequest): Promise<GuardedResponse> {
  let url = new URL(input.url);
  let method = input.method;
  let headers = input.headers;
  let body = input.body;
  for (let hop = 0; ; hop += 1) {
    const response = await send(url, method, headers, body, input);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (!REDIRECTS.has(status) || location === undefined) {
      const data = await readCapped(response, input.maxBodyBytes);
      return {
        status,
        contentType: response.headers['content-type'] ?? '',
        body: data,
        url: url.href,
      };
    }
    response.destroy();
    if (hop >= input.maxRedirects) throw refused(`more than ${input.maxRedirects} redirects`);
    const next = new URL(location, url);
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    if (next.origin !== url.origin) {
      // The flow's headers (API keys, Authorization) and its body were meant for the first origin.
      headers = {};
      body = undefined;
    }
    url = next;
  }
}
