/** Checkboxes of every bot: which bots an agent is assigned to. */
import { useBots } from '../../api/bots.ts';
import { QueryState } from '../../components/query-state.tsx';

export function BotPicker({
  legend,
  value,
  onChange,
}: {
  legend: string;
  value: string[];
  onChange: (bots: string[]) => void;
}) {
  const bots = useBots();
  if (!bots.isSuccess) {
    return (
      <QueryState query={bots} loading="Loading bots…" failed="The bots could not be loaded." />
    );
  }
  return (
    <fieldset>
      <legend>{legend}</legend>
      {bots.data.items.length === 0 && <p>No bots yet.</p>}
      {bots.data.items.map((bot) => (
        <label key={bot.app_id} className="check">
          <input
            type="checkbox"
            checked={value.includes(bot.app_id)}
            onChange={(e) =>
              onChange(
                e.target.checked ? [...value, bot.app_id] : value.filter((id) => id !== bot.app_id),
              )
            }
          />
          {bot.name}
        </label>
      ))}
    </fieldset>
  );
}
