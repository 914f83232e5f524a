/**
 * What the bench's hand-written systems (the grammY bot, ./grammy.ts, and the floors, ./floor.ts)
 * start from: a scratch database (left unmigrated) and key prefix, the stand-in Telegram API, and
 * `options.bots` bots each with its own token and webhook secret, and a free port to serve them on.
 */
import { randomBytes } from 'node:crypto';
import { freePort } from '../edge/processes.ts';
import { cleanups, openScratch, type Scratch } from '../lib/setup.ts';
import type { Options } from './options.ts';
import { startPlatform, type PlatformStandIn } from './platform.ts';

export interface HandWritten extends Scratch {
  platform: PlatformStandIn;
  /** Bot i is served at `/bot/<i>`; its token's numeric part is `firstBotId + i`. */
  bots: { token: string; secret: string }[];
  port: number;
  origin: string;
}

export async function openHandWritten(
  options: Options,
  connectionName: string,
  note: string,
  firstBotId: number,
): Promise<HandWritten> {
  const scratch = await openScratch({ ...options, migrate: false }, connectionName, note);
  const platform = await startPlatform();
  cleanups.push({ what: 'stand-in platform', run: () => platform.close() });
  const bots = Array.from({ length: options.bots }, (_, b) => ({
    token: `${firstBotId + b}:${randomBytes(26).toString('base64url')}`,
    secret: randomBytes(24).toString('base64url'),
  }));
  const port = await freePort();
  return { ...scratch, platform, bots, port, origin: `http://127.0.0.1:${port}` };
}
