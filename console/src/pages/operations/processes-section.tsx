/** The components and their live processes, with when each was last seen (stale ones marked). */
import { useQuery } from '@tanstack/react-query';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { isStale, relativeTime } from '../ops-shared/relative-time.ts';
import { getProcesses, opsKeys } from './operations-api.ts';
import { useNow } from './use-now.ts';

/** How often processes and backlogs are read again (ms). */
export const OPS_REFRESH_MS = 10_000;

export function ProcessesSection() {
  const now = useNow();
  const processes = useQuery({
    queryKey: opsKeys.processes,
    queryFn: getProcesses,
    refetchInterval: OPS_REFRESH_MS,
  });
  return (
    <section aria-labelledby="ops-processes-h">
      <h2 id="ops-processes-h">Processes</h2>
      {processes.isPending && <p role="status">Loading processes…</p>}
      {processes.isError && (
        <ErrorAlert what="The processes could not be loaded." error={processes.error} />
      )}
      {processes.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Component</th>
              <th scope="col">Process</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {processes.data.components.map(({ component, processes: list }) =>
              list.length === 0 ? (
                <tr key={component} className="ops-stale">
                  <th scope="row">{component}</th>
                  <td colSpan={2}>
                    <strong>No process running</strong>
                  </td>
                </tr>
              ) : (
                list.map((p, i) => {
                  const stale = p.alive === false || isStale(p.last_seen, now);
                  return (
                    <tr key={`${component}/${p.name}`} className={stale ? 'ops-stale' : undefined}>
                      {i === 0 && (
                        <th scope="row" rowSpan={list.length}>
                          {component}
                        </th>
                      )}
                      <td>{p.name}</td>
                      <td>
                        <time dateTime={p.last_seen} title={new Date(p.last_seen).toLocaleString()}>
                          {relativeTime(p.last_seen, now)}
                        </time>
                        {stale && <strong> — stale</strong>}
                      </td>
                    </tr>
                  );
                })
              ),
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}
