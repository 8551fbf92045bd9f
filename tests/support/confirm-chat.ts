// A confirm gate on a bus, as the bridge and adapter tests build it: `nextPrompt` waits for the
// gate's next prompt, and `chat` puts a gate on a fake Feishu group on a manual clock, over a store
// that a restart (a new bus, chat and gate) keeps.
import { createMessageBus, type MessageBus } from '@parley/bus';
import {
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  createConfirmGate,
} from '@parley/confirm';
import { createManualClock, createMemoryStore, createSequentialIds } from '@parley/core';
import type { ManualClock, Store } from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { afterEach } from 'vitest';

/** Resolves with the next `prompted` event of `gate` (a prompt it delivered). */
export function nextPrompt(gate: Pick<ConfirmGate, 'on'>): Promise<ConfirmEvents['prompted']> {
  return new Promise((resolve) => {
    const off = gate.on('prompted', (event) => {
      off();
      resolve(event);
    });
  });
}

/** A confirm gate on a fake Feishu chat, on a manual clock and a memory store. */
export interface Chat {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly confirm: ConfirmGate;
  /** Resolves with the next prompt the gate delivered. */
  nextPrompt(): Promise<ConfirmEvents['prompted']>;
  /** Answers every prompt with `text` as alice in g1, from now on. */
  answerWith(text: string): void;
  /** A new confirm gate over the same store and clock, on a new bus and chat: a restart. */
  restart(options?: Partial<ConfirmGateOptions>): Promise<Chat>;
}

/** Who asks, in `chat`'s group: alice in the Feishu group g1. */
export const SESSION = { sessionKey: 'feishu:g1', requester: 'alice' } as const;

/**
 * A gate on a new bus and fake Feishu chat; with `shared`, over that clock and store (a restart,
 * whose confirmation ids start `cfm_r`), otherwise over a new clock at 1 000 000 and a new store.
 */
export async function chat(
  options: Partial<ConfirmGateOptions> = {},
  shared?: { clock: ManualClock; store: Store },
): Promise<Chat> {
  const clock = shared?.clock ?? createManualClock({ now: 1_000_000 });
  const store = shared?.store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock });
  await bus.attach(channel);
  const confirm = createConfirmGate({
    bus,
    clock,
    store,
    generateId: createSequentialIds(shared === undefined ? 'cfm_' : 'cfm_r'),
    ...options,
  });
  await confirm.ready;
  return {
    clock,
    store,
    bus,
    channel,
    confirm,
    nextPrompt: () => nextPrompt(confirm),
    answerWith(text) {
      confirm.on('prompted', () => {
        void channel.say('g1', 'alice', text);
      });
    },
    restart: (more = {}) => chat(more, { clock, store }),
  };
}

/** What the calling test file opens (gates, clients, servers): each test's are closed, in order, after it. */
export function closedAfterEach(): { close(): Promise<void> }[] {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const item of open.splice(0)) await item.close();
  });
  return open;
}
