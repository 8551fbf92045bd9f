// The Teams bot of the tests: the real Chat SDK and its Teams adapter (with the Teams SDK's own JWT
// validation), pointed at the exported Bot Framework stand-in with `trustTeamsStandIn`.
import { createMemoryState } from '@chat-adapter/state-memory';
import { createTeamsAdapter, type TeamsAdapter } from '@chat-adapter/teams';
import type { ManualClock } from '@parley/core';
import { Chat, type StateAdapter } from 'chat';
import { createTeamsStandIn, type TeamsStandIn, trustTeamsStandIn } from '../src/testing.js';
import { attachRecorded, type Recorded, silent } from './recorder.js';

export const ALICE = { id: '29:alice', name: 'Alice' } as const;
export const MALLORY = { id: '29:mallory', name: 'Mallory' } as const;

export interface TeamsHarness extends Recorded {
  readonly bot: Chat;
  readonly teams: TeamsAdapter;
  readonly standIn: TeamsStandIn;
  close(): Promise<void>;
}

/** Starts one process of the bot; given `shared`, it talks to that stand-in and leaves it open. */
export async function startTeams(
  clock: ManualClock,
  shared?: TeamsStandIn,
  state: StateAdapter = createMemoryState(),
): Promise<TeamsHarness> {
  const standIn = shared ?? (await createTeamsStandIn({ clock }));
  const teams = createTeamsAdapter({ ...standIn.adapterConfig, logger: silent });
  trustTeamsStandIn(teams, standIn);
  const bot = new Chat({ userName: 'parley', adapters: { teams }, state, logger: 'silent' });
  standIn.deliverTo((request) => bot.webhooks.teams(request));
  await bot.initialize();
  const recorded = await attachRecorded(bot, clock);
  return {
    bot,
    teams,
    ...recorded,
    standIn,
    async close() {
      await recorded.bus.close();
      await bot.shutdown();
      if (shared === undefined) await standIn.close();
    },
  };
}
