// Shared by the chat-flow host tests: a three-step signup flow, a host on a flaky store with every
// callback recorded, and a gate that holds a callback until the test lets it go.
import { createManualClock, type ManualClock } from '@parley/core';
import { z } from 'zod';
import { defineFlow } from '@parley/fsm';
import {
  type ChatContext,
  type ChatFlowHost,
  type ChatFlowHostEvents,
  type ChatFlowHostOptions,
  createChatFlowHost,
  createFlowSessionStore,
} from '../src/index.js';
import { createFlakyStore, type FlakyStore } from './stored-helpers.js';

export const signup = defineFlow({
  id: 'signup',
  version: 1,
  steps: [
    { name: 'email', prompt: 'Your email?', fields: z.object({ email: z.string().email() }) },
    { name: 'plan', prompt: 'Which plan?', fields: z.object({ plan: z.enum(['free', 'pro']) }) },
    { name: 'confirm', prompt: 'Type YES', fields: z.object({ confirm: z.literal('YES') }) },
  ],
});

export type Step = 'email' | 'plan' | 'confirm';
export interface Data {
  readonly notes: readonly string[];
}
export type Ctx = ChatContext<Step, unknown, Data>;
export type Options = Partial<ChatFlowHostOptions<Step, unknown, Data>>;

export const FIELD: Record<string, string> = { email: 'email', plan: 'plan', confirm: 'confirm' };
/** Reads a reply as the one field of the current step. */
export const readField = (text: string, ctx: Ctx): unknown => ({ [FIELD[ctx.session.step] ?? 'x']: text });

export interface Rig {
  readonly clock: ManualClock;
  readonly store: FlakyStore;
  readonly asked: string[];
  readonly events: { event: string; payload: unknown }[];
  open(more?: Options): ChatFlowHost<Data>;
}

export function createRig(base: Options = {}): Rig {
  const clock = createManualClock({ now: 1_000 });
  const store = createFlakyStore(clock);
  const asked: string[] = [];
  const events: { event: string; payload: unknown }[] = [];
  const open = (more: Options = {}): ChatFlowHost<Data> => {
    const sessions = createFlowSessionStore<Step, unknown, Data>(signup, {
      store,
      clock,
      saveRetryDelaysMs: [10],
      wait: async () => undefined,
    });
    const host = createChatFlowHost<Step, unknown, Data>({
      sessions,
      clock,
      read: readField,
      ask: (prompt) => void asked.push(prompt),
      ...base,
      ...more,
    });
    const names = [
      'opened',
      'duplicate',
      'effect-claimed',
      'effect-done',
      'outcome-unknown',
      'refused',
    ] as const;
    for (const event of names) {
      host.on(event, (payload: ChatFlowHostEvents[typeof event]) => events.push({ event, payload }));
    }
    return host;
  };
  return { clock, store, asked, events, open };
}

export const named = (rig: Rig, event: string): unknown[] =>
  rig.events.filter((e) => e.event === event).map((e) => e.payload);

/** A promise the test resolves by hand. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export const NOTES: Data = { notes: [] };
