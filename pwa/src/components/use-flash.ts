import { useCallback, useEffect, useState } from 'react';

export interface Flash {
  kind: 'success' | 'error';
  text: string;
}

/** A message that goes away by itself after `ms` (spec: flash messages last 3 s). */
export function useFlash(ms = 3000): [Flash | null, (flash: Flash) => void] {
  const [flash, setFlash] = useState<Flash | null>(null);
  useEffect(() => {
    if (!flash) return undefined;
    const timer = setTimeout(() => setFlash(null), ms);
    return () => clearTimeout(timer);
  }, [flash, ms]);
  const show = useCallback((next: Flash) => setFlash(next), []);
  return [flash, show];
}
