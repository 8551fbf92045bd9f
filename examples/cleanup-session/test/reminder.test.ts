// The follow-up reminder asked for at close, as this host wires @parley/fsm's createFollowUps (whose
// own tests cover the mechanism): stored under cleanup:followup:<id> with an absolute due time, sent
// through the notifier when due (not before), re-armed by a host that resumes the session after a
// restart, sent at once when the restart comes after the due time, and never sent twice.
import { describe, expect, it } from 'vitest';
import { type CleanupHost, resumeCleanupSession, startCleanupSession } from '../src/host.js';
import { reminderDelayMs } from '../src/effects.js';
import { followUpKey } from '../src/persistence.js';
import { createRig, linesOf, type Rig, START, TO_EXECUTE } from './helpers.js';

const DAY = 24 * 60 * 60_000;
const CLOSE = ['telegram', 'yes, export the audit and remind me in 7 days'] as const;

async function closeWithReminder(rig: Rig): Promise<CleanupHost> {
  const host = await startCleanupSession(rig.options);
  for (const text of [...TO_EXECUTE, 'proceed', ...CLOSE]) await host.reply(text);
  expect(host.done).toBe(true);
  return host;
}
/** The stored reminder: the data of its record (the durable kernel keeps it in an envelope). */
const reminderOf = async (rig: Rig) =>
  ((await rig.store.inner.get(followUpKey('sess_1'))) as { data: Record<string, unknown> }).data;
const reminders = (rig: Rig) => rig.notifier.sent.filter((n) => n.text.startsWith('Follow-up'));

describe('the follow-up reminder', () => {
  it('is stored with an absolute due time and sent on the clock when due, not before', async () => {
    const rig = createRig({ platform: ['success'] });
    const host = await closeWithReminder(rig);
    const closedAt = rig.clock.now();
    expect(await reminderOf(rig)).toMatchObject({
      dueAt: closedAt + 7 * DAY,
      payload: { mode: 'telegram' },
      sentAt: null,
    });
    expect(rig.clock.pendingTimers()).toBe(1);
    rig.clock.advance(7 * DAY - 1);
    await host.settled();
    expect(reminders(rig)).toEqual([]);
    rig.clock.advance(1);
    await host.settled();
    expect(reminders(rig)).toHaveLength(1);
    expect(await reminderOf(rig)).toMatchObject({ sentAt: closedAt + 7 * DAY });
    expect(linesOf(rig.transcript, 'host').at(-1)).toMatch(/^follow-up reminder sent via telegram/);
    expect(rig.clock.pendingTimers()).toBe(0);
  });

  it('survives a restart before it is due: the resumed host re-arms it and sends it once', async () => {
    const rig = createRig({ platform: ['success'] });
    const first = await closeWithReminder(rig);
    rig.clock.advance(2 * DAY);
    first.stop(); // the process goes away with its timer
    expect(rig.clock.pendingTimers()).toBe(0);
    const second = await resumeCleanupSession(rig.options, 'sess_1');
    rig.clock.advance(5 * DAY);
    await second.settled();
    expect(reminders(rig)).toHaveLength(1);
    // A later restart finds it sent and arms nothing.
    second.stop();
    const third = await resumeCleanupSession(rig.options, 'sess_1');
    expect(rig.clock.pendingTimers()).toBe(0);
    third.stop();
    expect(reminders(rig)).toHaveLength(1);
  });

  it('is sent at once by a host that resumes after the due time', async () => {
    const rig = createRig({ platform: ['success'] });
    (await closeWithReminder(rig)).stop();
    rig.clock.advance(10 * DAY); // nobody was running when it fell due
    expect(reminders(rig)).toEqual([]);
    const host = await resumeCleanupSession(rig.options, 'sess_1');
    rig.clock.advance(0);
    await host.settled();
    expect(reminders(rig)).toHaveLength(1);
    const sent = await reminderOf(rig);
    expect(sent.sentAt).toBe(rig.clock.now());
    expect(sent.sentAt as number).toBeGreaterThan(sent.dueAt as number);
    expect(sent.sentAt as number).toBeGreaterThanOrEqual(START + 10 * DAY);
  });

  it('is sent in the chat when no notification mode was chosen, and not scheduled without a preference', async () => {
    const rig = createRig({ platform: ['success'] });
    const host = await startCleanupSession(rig.options);
    for (const text of [...TO_EXECUTE, 'proceed', 'none', 'remind me in 1 day']) await host.reply(text);
    rig.clock.advance(DAY);
    await host.settled();
    expect(rig.notifier.sent).toEqual([expect.objectContaining({ mode: 'chat' })]);
    expect(reminderDelayMs('none')).toBeUndefined();
    expect(reminderDelayMs(undefined)).toBeUndefined();
    expect(reminderDelayMs('remind_in_14d')).toBe(14 * DAY);
  });

  it('is not sent again by a host that resumes after a crash between its claim and its mark', async () => {
    const rig = createRig({ platform: ['success'] });
    const host = await closeWithReminder(rig);
    host.stop();
    const record = (await rig.store.inner.get(followUpKey('sess_1'))) as { data: Record<string, unknown> };
    const claimed = { ...record, data: { ...record.data, sendingAt: rig.clock.now() } }; // claimed, never marked
    await rig.store.inner.set(followUpKey('sess_1'), claimed as never);
    rig.clock.advance(10 * DAY);
    const resumed = await resumeCleanupSession(rig.options, 'sess_1');
    rig.clock.advance(0);
    await resumed.settled();
    expect(reminders(rig)).toEqual([]);
    expect(linesOf(rig.transcript, 'system').at(-1)).toContain(
      'never marked sent; not sent again until checked',
    );
    resumed.stop();
  });
});
