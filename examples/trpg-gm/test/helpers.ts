// One GM session on a fresh manual clock and scripted GM model, for tests that play turns directly.
import type { Proposal } from '@parley/conflict';
import { createManualClock, type ManualClock } from '@parley/core';
import { createScriptedModel, type ScriptedModel } from '@parley/testing';
import type { GmRequest } from '../src/context.js';
import { createGmSession, type GmSession, type GmSessionOptions } from '../src/session.js';

export interface SessionRig {
  readonly session: GmSession;
  readonly clock: ManualClock;
  readonly model: ScriptedModel<Proposal, GmRequest>;
}

/** A session at 2026-01-14 19:00 UTC with turn ids `turn_1`, `turn_2`…; `options` override any of it. */
export async function startSession(options: Partial<GmSessionOptions> = {}): Promise<SessionRig> {
  const clock = createManualClock({ now: Date.UTC(2026, 0, 14, 19) });
  const model = createScriptedModel<Proposal, GmRequest>({ clock });
  let n = 0;
  const session = await createGmSession({ clock, model, generateTurnId: () => `turn_${++n}`, ...options });
  return { session, clock, model };
}

/**
 * Starts sessions for a test file and closes them all after each test (`afterEach(pool.closeAll)`);
 * `model` is the scripted GM model of the session started last.
 */
export function sessionPool(): {
  start(options?: Partial<GmSessionOptions>): Promise<GmSession>;
  closeAll(): Promise<void>;
  readonly model: ScriptedModel<Proposal, GmRequest>;
} {
  let open: GmSession[] = [];
  let last: SessionRig | undefined;
  return {
    async start(options = {}) {
      last = await startSession(options);
      open.push(last.session);
      return last.session;
    },
    async closeAll() {
      for (const session of open) await session.close();
      open = [];
    },
    get model() {
      if (last === undefined) throw new Error('No session started yet');
      return last.model;
    },
  };
}
