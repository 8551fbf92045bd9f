// The agent's side of an adapter's confirmation-seed test: a confirm gate on the adapter's bus, a
// destructive tool that runs only on an authorised decision, and what the gate refused or ignored,
// kept across a restart (a new gate on the same store and clock).
import type { MessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import type { ConfirmDecision, ConfirmEvents, ConfirmGate, ConfirmGateOptions } from '@parley/confirm';
import type { ManualClock, Store } from '@parley/core';
import { nextPrompt } from './confirm-chat.js';
import { ACTION } from './gate-bot.js';

export interface ConfirmSeed {
  /** The gate the latest `start` made. */
  readonly gate: ConfirmGate;
  /** Every `refused` event of every gate started, in order. */
  readonly refused: ConfirmEvents['refused'][];
  /** Every `ignored` event of every gate started, in order. */
  readonly ignored: ConfirmEvents['ignored'][];
  /** How often the tool ran. */
  readonly executed: number;
  /** Starts a ready gate on `bus`, over the seed's clock and store: a first process or a restart. */
  start(bus: MessageBus, options?: Partial<ConfirmGateOptions>): Promise<ConfirmGate>;
  /** What the destructive tool does: it runs (counted in `executed`) only if `decision` authorises `ACTION`. */
  purge(decision: ConfirmDecision): Promise<void>;
  /**
   * The tool asks the gate to confirm `ACTION` for the sender of `message` in its session;
   * `prompted` resolves once the gate sent its prompt.
   */
  ask(message: { readonly sessionKey: string; readonly senderId: string }): {
    readonly decision: Promise<ConfirmDecision>;
    readonly prompted: Promise<ConfirmEvents['prompted']>;
  };
}

/** A seed over `clock` and `store`; call `start` before using its gate. */
export function createConfirmSeed(world: {
  readonly clock: ManualClock;
  readonly store: Store;
}): ConfirmSeed {
  let current: ConfirmGate | undefined;
  let executed = 0;
  const refused: ConfirmEvents['refused'][] = [];
  const ignored: ConfirmEvents['ignored'][] = [];
  const gate = (): ConfirmGate => {
    if (current === undefined) throw new Error('The seed has no gate yet: call start(bus) first');
    return current;
  };
  return {
    get gate() {
      return gate();
    },
    refused,
    ignored,
    get executed() {
      return executed;
    },
    async start(bus, options = {}) {
      current = createConfirmGate({ bus, clock: world.clock, store: world.store, ...options });
      current.on('refused', (event) => refused.push(event));
      current.on('ignored', (event) => ignored.push(event));
      await current.ready;
      return current;
    },
    async purge(decision) {
      if ((await gate().authorize(decision, ACTION)).ok) executed++;
    },
    ask(message) {
      const prompted = nextPrompt(gate());
      const decision = gate().request({
        sessionKey: message.sessionKey,
        requester: message.senderId,
        action: ACTION,
        summary: ACTION.args.sql,
      });
      return { decision, prompted };
    },
  };
}
