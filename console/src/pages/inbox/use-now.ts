/** The time now, renewed every `everyMs` while the component is mounted (a ticking clock). */
import { useEffect, useState } from 'react';

export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
