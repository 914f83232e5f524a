/**
 * The SQL that adds turns' counts (`turn-counts.ts`) to the rollups, as common table expressions
 * of the very statement that stores the turns' conversation states (`state-store.ts`): a turn is
 * counted exactly when its state is written, once, and a turn retried after a conflict or
 * redelivered after a crash counts nothing more. Rows are upserted in key order, so two
 * statements adding to the same rows wait for each other instead of deadlocking. A user's row
 * (`analytics_users`) moves to a new day at the first message of the user that day, which is when
 * the user counts as active that day (a row that did not move is not returned).
 */

import { STATE_COUNTERS, TURN_COUNTERS } from '../../shared/analytics-counters.ts';

const KEY = 'app_id, day, channel_type, language, flow_version';

const typed = (names: readonly string[]): string => names.map((n) => `${n} integer`).join(', ');
const sums = (names: readonly string[], from: string): string =>
  names.map((n) => `sum(${from}.${n})`).join(', ');
const adds = (names: readonly string[]): string =>
  names.map((n) => `${n} = t.${n} + excluded.${n}`).join(', ');

/**
 * `with` items (no leading `with`, no trailing comma) adding the counts in parameter `param` (a
 * JSON array of `TurnCounts`) of the conversations that the earlier item `written` returns
 * (`conversation_id`). An empty array adds nothing.
 */
export function rollupCtes(param: string, written: string): string {
  // One row per conversation even if a batch ever held two of its turns: an upsert may touch a
  // row once per statement, and the batch's other turns must not fail for it.
  return `analytics_turns as (
    select distinct on (d.conversation_id) d.*
    from jsonb_to_recordset(${param}::jsonb) as d (
      conversation_id uuid, app_id text, day date, channel_type text, language text,
      flow_version integer, ${typed(TURN_COUNTERS)}, states jsonb)
    where d.conversation_id in (select conversation_id from ${written})
    order by d.conversation_id
  ),
  analytics_seen as (
    insert into analytics_users as t (app_id, conversation_id, channel_type, first_day, last_day)
    select app_id, conversation_id, channel_type, day, day from analytics_turns
    where messages_in > 0
    order by app_id, conversation_id
    on conflict (app_id, conversation_id) do update set last_day = excluded.last_day
      where t.last_day < excluded.last_day
    returning app_id, conversation_id
  ),
  analytics_bot_rows as (
    insert into analytics_days as t (${KEY}, ${TURN_COUNTERS.join(', ')}, active_users)
    select d.app_id, d.day, d.channel_type, d.language, d.flow_version, ${sums(TURN_COUNTERS, 'd')},
      count(a.conversation_id)
    from analytics_turns d
    left join analytics_seen a on a.app_id = d.app_id and a.conversation_id = d.conversation_id
    group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
    on conflict (${KEY}) do update set ${adds(TURN_COUNTERS)}, active_users = t.active_users + excluded.active_users
  ),
  analytics_state_rows as (
    insert into analytics_state_days as t (${KEY}, state, ${STATE_COUNTERS.join(', ')})
    select d.app_id, d.day, d.channel_type, d.language, d.flow_version, x.state,
      ${sums(STATE_COUNTERS, 'x')}
    from analytics_turns d
    cross join jsonb_to_recordset(d.states) as x (state text, ${typed(STATE_COUNTERS)})
    group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6
    on conflict (${KEY}, state) do update set ${adds(STATE_COUNTERS)}
  )`;
}
