/**
 * Operations (`/console/operations`): processes and when they were last seen, what waits for
 * each bot (its backlog, replies parked behind a failing platform), topic backlogs (both read
 * every 10 s), and dead letters per topic, live on `dead-letter` events. The topic shown
 * is kept in the URL (`?topic=`).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { LiveBadge } from '../ops-shared/live-badge.tsx';
import '../ops-shared/ops-shared.css';
import { useLiveEvents } from '../ops-shared/use-live-events.ts';
import { BotsSection } from './bots-section.tsx';
import { DeadLettersSection } from './dead-letters-section.tsx';
import { opsKeys } from './operations-api.ts';
import { ProcessesSection } from './processes-section.tsx';
import { parseDeadLetterEvent } from './replay.ts';
import { TopicsSection } from './topics-section.tsx';
import './operations.css';

const TYPES = ['dead-letter'] as const;

export function OperationsPage() {
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const topic = params.get('topic') ?? undefined;
  const live = useLiveEvents(TYPES, {
    onEvent: (_type, data) => {
      const event = parseDeadLetterEvent(data);
      if (!event) return;
      void queryClient.invalidateQueries({ queryKey: opsKeys.topics }, { cancelRefetch: false });
      void queryClient.invalidateQueries(
        { queryKey: opsKeys.deadLetters(event.topic), exact: true },
        { cancelRefetch: false },
      );
    },
    onReset: () => void queryClient.invalidateQueries({ queryKey: opsKeys.all }),
  });
  return (
    <div className="ops-page">
      <header className="ops-header">
        <h1>Operations</h1>
        <LiveBadge state={live} />
      </header>
      <ProcessesSection />
      <BotsSection />
      <TopicsSection selected={topic} onSelect={(t) => setParams({ topic: t })} />
      {topic !== undefined && <DeadLettersSection key={topic} topic={topic} />}
    </div>
  );
}
