/** The current time, renewed every `everyMs` (default 5,000 ms) so "12 s ago" keeps moving. */
import { useEffect, useState } from 'react';

export function useNow(everyMs = 5000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
