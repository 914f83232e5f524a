/**
 * A bot's WhatsApp message templates (docs/outbound.md): `POST /v2/bots/:app_id/templates/sync`
 * reads them from each WhatsApp channel's Business Account, `GET /v2/bots/:app_id/templates`
 * lists them with the parameters each takes (agents too: they send one when a window closed).
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { requireBotAccess } from '../admin/principal.ts';
import { listTemplates, placeholdersOf, syncTemplates } from './templates.ts';

type RouteContext = Context & { params: Record<string, string> };

export function templateRoutes(
  router: Router,
  edge: Edge,
  appIdOf: (ctx: RouteContext) => string,
): void {
  const botOf = async (ctx: RouteContext) => {
    const appId = appIdOf(ctx);
    requireBotAccess(ctx, appId);
    const bot = await edge.directory.byAppId(appId);
    if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    return bot;
  };

  router.post('/v2/bots/:app_id/templates/sync', async (ctx) => {
    const bot = await botOf(ctx);
    const channels = [];
    for (const channel of bot.channels.filter((c) => c.type === 'whatsapp')) {
      const secrets = channel.secrets;
      if (secrets.type !== 'whatsapp' || !secrets.details.business_account_id) {
        channels.push({ channel_id: channel.id, synced: false, reason: 'no business_account_id' });
        continue;
      }
      const templates = await syncTemplates(edge.db, edge, channel);
      channels.push({ channel_id: channel.id, synced: true, templates });
    }
    ctx.body = { channels };
    ctx.state.audit = { after: { channels } };
  });

  router.get('/v2/bots/:app_id/templates', async (ctx) => {
    const bot = await botOf(ctx);
    const rows = await listTemplates(edge.db, bot.appId);
    ctx.body = {
      items: rows.map((row) => ({ ...row, parameters: placeholdersOf(row.components) })),
    };
  });
}
