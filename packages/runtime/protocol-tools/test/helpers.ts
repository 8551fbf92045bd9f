import { createManualClock, createSequentialIds, type ManualClock, type Store } from '@parley/core';
import {
  type CorrelateMessage,
  type Correlator,
  createCorrelator,
  planApprovalProtocol,
  type Protocol,
  shutdownProtocol,
} from '@parley/correlate';

export interface Team {
  readonly clock: ManualClock;
  readonly wire: CorrelateMessage[];
  readonly parties: Map<string, Correlator>;
  add(
    self: string,
    options?: { store?: Store; protocols?: readonly Protocol[]; maxPending?: number; send?: () => void },
  ): Correlator;
  flush(): Promise<void>;
  close(): void;
}

export function createTeam(): Team {
  const clock = createManualClock({ now: Date.UTC(2026, 3, 15, 9) });
  const ids = createSequentialIds('req_');
  const wire: CorrelateMessage[] = [];
  const parties = new Map<string, Correlator>();
  const team: Team = {
    clock,
    wire,
    parties,
    add(self, options = {}) {
      const correlator = createCorrelator({
        self,
        protocols: options.protocols ?? [shutdownProtocol, planApprovalProtocol],
        send: options.send ?? ((m) => void wire.push(m)),
        clock,
        generateId: ids,
        ...(options.store === undefined ? {} : { store: options.store }),
        ...(options.maxPending === undefined ? {} : { maxPending: options.maxPending }),
      });
      parties.set(self, correlator);
      return correlator;
    },
    async flush() {
      // delivers until the wire stays empty for 20 microtask turns (a store write before a send takes several)
      for (let quiet = 0; quiet < 20; quiet++) {
        if (wire.length > 0) quiet = 0;
        for (let m = wire.shift(); m !== undefined; m = wire.shift()) await parties.get(m.to)?.receive(m);
        await Promise.resolve();
      }
    },
    close() {
      for (const c of parties.values()) c.close();
    },
  };
  return team;
}
