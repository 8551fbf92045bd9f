// A refusal's text is `message` (CONTRIBUTING, "Vocabulary"); `reason` stays one minor version as a
// deprecated copy of it, on the refusal and on its `refused` event.
import { createManualClock, createMemoryStore } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createFollowUps, type FlowSessionStoreEvents } from '../src/index.js';
import { setup } from './stored-helpers.js';

describe('a stored session refusal', () => {
  it('carries its text as `message`, copied to the deprecated `reason` and to the event', async () => {
    const { sessions } = setup();
    const events: FlowSessionStoreEvents['refused'][] = [];
    sessions.on('refused', (event) => events.push(event));
    const resumed = await sessions.resume('nobody');
    if (resumed.ok) throw new Error('expected not_found');
    expect([resumed.code, resumed.message, resumed.reason]).toEqual([
      'not_found',
      'no session nobody is stored',
      'no session nobody is stored',
    ]);
    expect(events).toMatchObject([{ code: 'not_found', message: resumed.message, reason: resumed.message }]);
  });
});

describe('a follow-up refusal', () => {
  it('carries its text as `message`, copied to the deprecated `reason`', async () => {
    const clock = createManualClock({ now: 0 });
    const followUps = createFollowUps<string>({
      store: createMemoryStore({ clock }),
      clock,
      send: () => undefined,
    });
    const armed = await followUps.arm('sess_404');
    if (armed.ok) throw new Error('expected not_found');
    expect(armed.code).toBe('not_found');
    expect(armed.message).toContain('sess_404');
    expect(armed.reason).toBe(armed.message);
  });
});
