import { describe, expect, it, vi } from 'vitest';
import { createRig } from './chat-helpers.js';

// Issue 36: a turn takes the lease on the record its handle committed last (the kernel's basis), so
// it reads nothing while no one else wrote; its writes and the giving back of the lease name the
// version it committed and read nothing either. A record another writer changed is read afresh.

describe('the store reads of a chat turn', () => {
  it('reads nothing per reply when the record is the one the host committed last', async () => {
    const rig = createRig();
    const host = rig.open();
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    const reads = vi.spyOn(rig.store, 'getEntry');
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect(await host.reply('chat_1', 'ann@example.com', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    expect(reads).not.toHaveBeenCalled();
    expect(writes).toHaveBeenCalledTimes(3); // the lease taken, the answer, the lease given back
    expect(rig.asked.at(-1)).toBe('Which plan?');
  });

  it('reads nothing to start a session: its first turn takes the lease on the record it created', async () => {
    const rig = createRig();
    const host = rig.open();
    const reads = vi.spyOn(rig.store, 'getEntry');
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    expect(reads).toHaveBeenCalledTimes(1); // the create's check that no session is stored
    expect(writes).toHaveBeenCalledTimes(3); // the record created, the lease taken, the lease given back
  });

  it('reads the record once to take the lease after another writer changed it', async () => {
    const rig = createRig();
    const host = rig.open();
    const other = rig.open(); // a second host on the same store: another replica
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    expect((await other.reply('chat_1', 'ann@example.com', { messageId: 'm1' })).ok).toBe(true);
    const reads = vi.spyOn(rig.store, 'getEntry');
    expect(await host.reply('chat_1', 'pro', { messageId: 'm2' })).toMatchObject({
      ok: true,
      step: 'confirm',
    });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('reads the record again when another writer changed it since: nothing is lost', async () => {
    const rig = createRig();
    const host = rig.open();
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    const other = rig.open(); // a second host on the same store: another replica
    expect(await other.reply('chat_1', 'ann@example.com', { messageId: 'm1' })).toMatchObject({ ok: true });
    expect(await host.reply('chat_1', 'pro', { messageId: 'm2' })).toMatchObject({
      ok: true,
      step: 'confirm',
    });
    expect(await host.reply('chat_1', 'pro', { messageId: 'm2' })).toMatchObject({
      ok: false,
      code: 'duplicate',
    });
  });
});
