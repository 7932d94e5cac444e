/** The bridge to the core, shared by every component, and a hook to follow pushed events. */
import { createContext, type ReactNode, useContext, useEffect, useRef } from 'react';
import type { AssistantEvent, PincerApi } from '../../../shared/ipc';

const BridgeContext = createContext<PincerApi | null>(null);

export function BridgeProvider({ bridge, children }: { bridge: PincerApi; children: ReactNode }) {
  return <BridgeContext.Provider value={bridge}>{children}</BridgeContext.Provider>;
}

export function useBridge(): PincerApi {
  const bridge = useContext(BridgeContext);
  if (!bridge) throw new Error('useBridge outside BridgeProvider');
  return bridge;
}

/** Calls `listener` with every pushed event while the component is mounted (latest closure). */
export function useCoreEvents(listener: (event: AssistantEvent) => void): void {
  const bridge = useBridge();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => bridge.subscribe((event) => latest.current(event)), [bridge]);
}
