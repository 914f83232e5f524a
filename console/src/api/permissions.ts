/**
 * What the signed-in caller may do, from the permission table the API enforces (`may` of
 * `GET /v2/me`, src/api/admin/permissions.ts): the console shows a control only when the route it
 * calls is there, so no role is offered a form that would be refused. Each such control names its
 * route in `data-route`, which the browser tests check against the same table.
 */
import { useMe } from './accounts.ts';

/** A route as the permission table names it: `POST /v2/bots/:app_id/channels`. */
export type RouteKey = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /v2/${string}`;

/** Whether the caller may call `route`; false until it is known who the caller is. */
export function useMay(): (route: RouteKey) => boolean {
  const me = useMe();
  const may = new Set(me.data?.may ?? []);
  return (route) => may.has(route);
}
