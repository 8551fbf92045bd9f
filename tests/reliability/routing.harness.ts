import { createMessageBus, type MessageBus } from '@parley/bus';
import {
  type ConfirmDecision,
  type ConfirmEvents,
  type ConfirmGate,
  type ConfirmGateOptions,
  type ConfirmRequest,
  createConfirmGate,
} from '@parley/confirm';
import {
  createManualClock,
  createMemoryStore,
  createSequentialIds,
  type ManualClock,
  type Store,
} from '@parley/core';
import { createFakeChannel, type FakeChannel } from '@parley/testing';
import { nextPrompt } from '../support/confirm-chat.js';
import { ACTION } from '../support/gate-bot.js';

export { ACTION } from '../support/gate-bot.js';

/** A bot on a fake Feishu channel with a confirmation gate, on a manual clock. */
export interface Bot {
  readonly clock: ManualClock;
  readonly store: Store;
  readonly bus: MessageBus;
  readonly channel: FakeChannel;
  readonly gate: ConfirmGate;
  readonly decided: ConfirmDecision[];
  readonly ignored: ConfirmEvents['ignored'][];
  readonly refused: ConfirmEvents['refused'][];
  /** Asks in chat g1 for alice (unless overridden) and waits until the prompt is out. */
  ask(overrides?: Partial<ConfirmRequest>): Promise<{ decision: Promise<ConfirmDecision>; id: string }>;
  /** The `confirmation` token of a button of the last card sent to a chat. */
  token(choice: 'confirm' | 'cancel', chatId?: string): string;
  /** What the agent would get: the inbound messages not consumed by an interceptor. */
  forwarded(): string[];
}

export async function startBot(
  options: Partial<ConfirmGateOptions> = {},
  shared?: { clock: ManualClock; store: Store },
  /** Runs on the bus before the gate installs its interceptor (e.g. a hygiene interceptor). */
  beforeGate?: (bus: MessageBus) => void,
): Promise<Bot> {
  const clock = shared?.clock ?? createManualClock({ now: 1_000_000 });
  const store = shared?.store ?? createMemoryStore({ clock });
  const bus = createMessageBus({ clock });
  const channel = createFakeChannel({ channel: 'feishu', clock });
  await bus.attach(channel);
  beforeGate?.(bus);
  const gate = createConfirmGate({ bus, clock, store, generateId: createSequentialIds('cfm_'), ...options });
  await gate.ready;
  const bot: Bot = {
    clock,
    store,
    bus,
    channel,
    gate,
    decided: [],
    ignored: [],
    refused: [],
    async ask(overrides = {}) {
      const prompted = nextPrompt(gate).then(({ id }) => id);
      const decision = gate.request({
        sessionKey: 'feishu:g1',
        action: ACTION,
        summary: ACTION.args.sql,
        requester: 'alice',
        ...overrides,
      });
      const id = await Promise.race([prompted, decision.then((d) => d.id)]);
      return { decision, id };
    },
    token(choice, chatId = 'g1') {
      const buttons = channel.lastSent(chatId)?.card?.buttons ?? [];
      const value = buttons[choice === 'confirm' ? 0 : 1]?.value as { confirmation?: string } | undefined;
      if (value?.confirmation === undefined) throw new Error(`no ${choice} button in ${chatId}`);
      return value.confirmation;
    },
    forwarded() {
      return channel.delivered.filter((d) => d.result.status === 'queued').map((d) => d.input.text ?? '');
    },
  };
  gate.on('decided', ({ decision }) => bot.decided.push(decision));
  gate.on('ignored', (event) => bot.ignored.push(event));
  gate.on('refused', (event) => bot.refused.push(event));
  return bot;
}
