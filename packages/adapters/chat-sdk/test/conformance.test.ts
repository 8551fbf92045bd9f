// @parley/testing's adapter conformance cases (the channel-confirmation seed) on the real Chat SDK,
// against the exported stand-ins: its Discord adapter (messages forwarded from the Gateway, clicks as
// signed HTTP interactions) and its Teams adapter (signed Bot Framework activities, Adaptive Card
// invokes). A restart is a new bot, adapter and bus on the same stand-in.
import type { MessageBus } from '@parley/bus';
import { createConfirmGate } from '@parley/confirm';
import { createManualClock, type ManualClock } from '@parley/core';
import { adapterConformanceCases, type AdapterConformanceSubject } from '@parley/testing';
import { describe, it } from 'vitest';
import {
  createDiscordStandIn,
  createTeamsStandIn,
  type DiscordPostedMessage,
  type DiscordStandIn,
  type DiscordUser,
  snowflakeAt,
  type TeamsSentActivity,
  type TeamsStandIn,
  type TeamsUser,
} from '../src/testing.js';
import { ALICE, MALLORY, startDiscord } from './helpers.js';
import { ALICE as TEAMS_ALICE, MALLORY as TEAMS_MALLORY, startTeams } from './teams-harness.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

/** What the cases need of one platform's stand-in and bot. */
interface Platform<S, U, C> {
  readonly users: { readonly requester: U; readonly other: U };
  standIn(clock: ManualClock): Promise<S & { close(): Promise<void> }>;
  start(clock: ManualClock, standIn: S): Promise<{ readonly bus: MessageBus; close(): Promise<void> }>;
  /** The ids of a text and of a click, the `seq`-th of the run. */
  id(kind: 'text' | 'click', at: number, seq: number): string;
  text(standIn: S, user: U, text: string, more: { id: string; at: number }): Promise<unknown>;
  cards(standIn: S): readonly C[];
  click(standIn: S, user: U, card: C, button: number, more: { id: string }): Promise<unknown>;
}

function subjectOf<S, U, C>(platform: Platform<S, U, C>): () => Promise<AdapterConformanceSubject> {
  return async () => {
    const clock = createManualClock({ now: T0 });
    const standIn = await platform.standIn(clock);
    let seq = 0;
    return {
      clock,
      createGate: (options) => createConfirmGate(options),
      close: () => standIn.close(),
      async start() {
        const h = await platform.start(clock, standIn);
        let stopped = false;
        return {
          bus: h.bus,
          async text(user, text, at) {
            const more = { id: platform.id('text', at, seq++), at };
            const send = () => platform.text(standIn, platform.users[user], text, more);
            await send();
            return { redeliver: async () => void (await send()) };
          },
          async click(user, button) {
            const card = platform.cards(standIn).at(-1);
            if (card === undefined) throw new Error('no card to click');
            const more = { id: platform.id('click', clock.now(), seq++) };
            const send = () =>
              platform.click(standIn, platform.users[user], card, button === 'confirm' ? 0 : 1, more);
            await send();
            return { redeliver: async () => void (await send()) };
          },
          prompts: () => platform.cards(standIn).length,
          async stop() {
            if (stopped) return;
            stopped = true;
            await h.close();
          },
        };
      },
    };
  };
}

const discord = subjectOf<DiscordStandIn, DiscordUser, DiscordPostedMessage>({
  users: { requester: ALICE, other: MALLORY },
  standIn: (clock) => createDiscordStandIn({ clock }),
  start: (clock, standIn) => startDiscord(clock, standIn),
  id: (kind, at, seq) => snowflakeAt(at, (kind === 'text' ? 500 : 900) + seq),
  text: (standIn, user, text, more) => standIn.message(user, text, more),
  cards: (standIn) => standIn.sent.filter((message) => (message.components?.length ?? 0) > 0),
  click: (standIn, user, card, button, more) => standIn.click(user, card, button, more),
});

const teams = subjectOf<TeamsStandIn, TeamsUser, TeamsSentActivity>({
  users: { requester: TEAMS_ALICE, other: TEAMS_MALLORY },
  standIn: (clock) => createTeamsStandIn({ clock }),
  start: (clock, standIn) => startTeams(clock, standIn),
  id: (kind, _at, seq) => `${kind}-${seq}`,
  text: (standIn, user, text, more) => standIn.message(user, text, more),
  cards: (standIn) => standIn.sent.filter((activity) => activity.buttons.length > 0),
  click: (standIn, user, card, button, more) => standIn.click(user, card, button, more),
});

describe('the adapter conformance cases on the Chat SDK (Discord)', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(discord));
});

describe('the adapter conformance cases on the Chat SDK (Teams)', () => {
  for (const check of adapterConformanceCases()) it(check.name, () => check.run(teams));
});
