/**
 * The route a request matched, as registered on a router (`/v2/bots/:app_id`): the last layer
 * that matched with the request's method. Koa-router's own `_matchedRoute` names the layer that
 * ran last, which for a request refused by router middleware (authentication, permissions) is the
 * middleware's catch-all pattern, not the route.
 */
import type { Context } from 'koa';

export function matchedRoute(ctx: Context): string | undefined {
  const matched = (ctx as { matched?: { path: unknown; methods: string[] }[] }).matched ?? [];
  // Middleware layers (router.use) have no methods.
  const layer = matched.filter((l) => l.methods.includes(ctx.method)).at(-1);
  return typeof layer?.path === 'string' ? layer.path : undefined;
}
