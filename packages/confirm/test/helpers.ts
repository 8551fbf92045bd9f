import { createMessageBus, type MessageBus } from '@parley/bus';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import {
  type ConfirmDecision,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  type ConfirmRequest,
  createConfirmGate,
} from '../src/index.js';

export interface Harness {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly gate: ConfirmGate;
  readonly decided: ConfirmDecision[];
  readonly events: {
    ignored: ConfirmEvents['ignored'][];
    refused: ConfirmEvents['refused'][];
    error: unknown[];
  };
  /** Resolves with the next `prompted` event. */
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
  /** Resolves with the next `queued` event. */
  nextQueued(): Promise<ConfirmEvents['queued']>;
  /** Starts a request in group chat g1 by alice and waits until it is prompted. */
  ask(overrides?: Partial<ConfirmRequest>): Promise<{ decision: Promise<ConfirmDecision>; id: string }>;
  /** A second gate on the same store and a fresh bus: a restart. */
  restart(options?: Partial<ConfirmGateOptions>): Promise<Harness>;
}

export const ACTION = { name: 'sql.delete', args: { sql: 'DELETE FROM orders WHERE status = 1' } } as const;

export async function setup(
  options: Partial<ConfirmGateOptions> = {},
  shared?: { clock: ManualClock; store: Store },
): Promise<Harness> {
  const clock = shared?.clock ?? createManualClock({ now: 1_000_000 });
  const store = shared?.store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock });
  await bus.attach(channel);
  const gate = createConfirmGate({ bus, clock, store, generateId: createSequentialIds('cfm_'), ...options });
  await gate.ready;
  const decided: ConfirmDecision[] = [];
  const events: Harness['events'] = { ignored: [], refused: [], error: [] };
  gate.on('decided', ({ decision }) => decided.push(decision));
  gate.on('ignored', (event) => events.ignored.push(event));
  gate.on('refused', (event) => events.refused.push(event));
  gate.on('error', ({ error }) => events.error.push(error));
  const nextPrompt = (): Promise<ConfirmEvents['prompted']> =>
    new Promise((resolve) => {
      const off = gate.on('prompted', (event) => {
        off();
        resolve(event);
      });
    });
  const nextQueued = (): Promise<ConfirmEvents['queued']> =>
    new Promise((resolve) => {
      const off = gate.on('queued', (event) => {
        off();
        resolve(event);
      });
    });
  const harness: Harness = {
    nextQueued,
    clock,
    store,
    bus,
    channel,
    gate,
    decided,
    events,
    nextPrompt,
    async ask(overrides = {}) {
      const prompted = nextPrompt();
      const decision = gate.request({
        sessionKey: 'feishu:g1',
        action: ACTION,
        summary: ACTION.args.sql,
        requester: 'alice',
        ...overrides,
      });
      const { id } = await Promise.race([prompted, decision.then((d) => ({ id: d.id }))]);
      return { decision, id };
    },
    restart: (more = {}) =>
      setup({ ...options, generateId: createSequentialIds('cfm_r'), ...more }, { clock, store }),
  };
  return harness;
}

/** The `confirmation` token of a button of the last card sent to a chat. */
export function buttonToken(
  channel: FakeChannel,
  choice: 'confirm' | 'cancel' | 'always',
  chatId = 'g1',
): string {
  const card = channel.lastSent(chatId)?.card;
  const index = { confirm: 0, cancel: 1, always: 2 }[choice];
  const value = card?.buttons[index]?.value as { confirmation: string } | undefined;
  if (value === undefined) throw new Error(`No ${choice} button in the last card sent to ${chatId}`);
  return value.confirmation;
}
