/**
 * Web visitor tokens: `v1.<claims>.<signature>`, where `claims` is the base64url JSON
 * `{app_id, visitor_id, exp}` (exp in Unix seconds) and `signature` the base64url HMAC-SHA256 of
 * `v1.<claims>` under the web channel's own key (sealed with its credentials). A token proves
 * which visitor of which bot is speaking; it carries no other right.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BotwireError } from '../../shared/errors.ts';

const VERSION = 'v1';

/** Longest token accepted (characters): claims of two ids and a time, and a signature. */
export const TOKEN_MAX_LENGTH = 512;

export interface VisitorClaims {
  app_id: string;
  visitor_id: string;
  /** Expiry, Unix time (seconds). */
  exp: number;
}

function signature(key: string, signed: string): Buffer {
  return createHmac('sha256', Buffer.from(key, 'base64url')).update(signed).digest();
}

/** A token for `claims`, signed with the channel's `key` (base64url). */
export function signToken(key: string, claims: VisitorClaims): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signed = `${VERSION}.${body}`;
  return `${signed}.${signature(key, signed).toString('base64url')}`;
}

function bad(message: string): BotwireError {
  return new BotwireError('BW_ERR_BAD_TOKEN', message);
}

/**
 * The claims of `token` when it is signed with `key` for the bot `appId` and not expired at
 * `nowS` (Unix seconds).
 * @throws BotwireError `BW_ERR_BAD_TOKEN` (missing, malformed, wrong signature or bot) or
 *   `BW_ERR_TOKEN_EXPIRED`.
 */
export function verifyToken(
  key: string,
  appId: string,
  token: string | undefined,
  nowS: number,
): VisitorClaims {
  if (!token) throw bad('a visitor token is required (Authorization: Bearer <token>)');
  const parts = token.length <= TOKEN_MAX_LENGTH ? token.split('.') : [];
  if (parts.length !== 3 || parts[0] !== VERSION) throw bad('the visitor token is malformed');
  const given = Buffer.from(parts[2]!, 'base64url');
  const expected = signature(key, `${parts[0]}.${parts[1]}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw bad('the visitor token is not signed for this bot');
  }
  let claims: Partial<VisitorClaims>;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as VisitorClaims;
  } catch {
    throw bad('the visitor token is malformed');
  }
  if (
    claims.app_id !== appId ||
    typeof claims.visitor_id !== 'string' ||
    typeof claims.exp !== 'number'
  ) {
    throw bad('the visitor token is not for this bot');
  }
  if (claims.exp <= nowS) {
    throw new BotwireError(
      'BW_ERR_TOKEN_EXPIRED',
      'the visitor token has expired; start a new session',
    );
  }
  return claims as VisitorClaims;
}

/** The bearer token of a request's `Authorization` header, if any. */
export function bearerOf(header: string): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}
