/**
 * Operator accounts for tests, made through the admin API as an owner would: an account of a
 * role (assigned to bots), signed in (a session cookie) and holding a personal token.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { TELEGRAM_TOKEN, type EdgeClient } from './api.ts';

/** The service origin of the test edge (PUBLIC_BASE_URL): cookie requests that change need it. */
export const ORIGIN = 'https://bots.example.test';

export interface TestAccount {
  id: string;
  email: string;
  password: string;
  role: string;
  /** `bw_session=<token>` of a sign-in. */
  cookie: string;
  /** A personal token of the account's role. */
  token: string;
}

/** Signs in with email and password; the cookie pair, or the refusal. */
export async function signIn(
  t: EdgeClient,
  email: string,
  password: string,
): Promise<{ status: number; cookie: string; json: any; headers: Headers }> {
  const response = await fetch(`${t.url}/v2/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ email, password }),
  });
  const text = await response.text();
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return {
    status: response.status,
    cookie,
    json: text ? (JSON.parse(text) as unknown) : undefined,
    headers: response.headers,
  };
}

/** Calls the edge with a session cookie (and the service origin). */
export function withCookie(
  t: EdgeClient,
  cookie: string,
  method: string,
  path: string,
  body?: unknown,
): ReturnType<EdgeClient['call']> {
  return t.call(method, path, {
    auth: false,
    headers: { cookie, origin: ORIGIN },
    ...(body !== undefined ? { body } : {}),
  });
}

/** Calls the edge with a bearer token. */
export function withToken(
  t: EdgeClient,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): ReturnType<EdgeClient['call']> {
  return t.call(method, path, {
    headers: { authorization: `Bearer ${token}` },
    ...(body !== undefined ? { body } : {}),
  });
}

/** Makes an account (as the admin key), signs it in and gives it a token of its role. */
export async function makeAccount(
  t: EdgeClient,
  role: string,
  bots: string[] = [],
): Promise<TestAccount> {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const made = await t.call('POST', '/v2/accounts', {
    body: { email, name: `A ${role}`, role, password, bots },
  });
  expect(made.status, made.text).to.equal(201);
  const signed = await signIn(t, email, password);
  expect(signed.status, JSON.stringify(signed.json)).to.equal(204);
  const token = await withCookie(t, signed.cookie, 'POST', '/v2/tokens', { name: 'tests' });
  expect(token.status, token.text).to.equal(201);
  return {
    id: made.json.id,
    email,
    password,
    role,
    cookie: signed.cookie,
    token: token.json.token,
  };
}

/** Makes a Telegram bot (no platform call is made for it); its app id. */
export async function makeBot(t: EdgeClient, name: string): Promise<string> {
  const bot = await t.call('POST', '/v2/bots', {
    body: { name, channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } } },
  });
  expect(bot.status, bot.text).to.equal(201);
  return bot.json.app_id as string;
}
