/** Loads a value once (and on demand), keeping the last error for display. */
import { useCallback, useEffect, useState } from 'react';
import { errorText } from '../../../../shared/format';

export function useLoad<T>(
  load: () => Promise<T>,
): [T | null, string | null, () => void, (value: T) => void] {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    load()
      .then((v) => {
        setValue(v);
        setError(null);
      })
      .catch((cause: unknown) => setError(errorText(cause)));
  }, [load]);
  useEffect(reload, [reload]);
  return [value, error, reload, setValue];
}
