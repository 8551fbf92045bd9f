import { describe, expect, it, vi } from 'vitest';
import { createRig } from './chat-helpers.js';

// Issue 36: a turn reads its record once, when it takes the lease; its writes and the giving back
// of the lease name the version it committed (the kernel's basis) and read nothing.

describe('the store reads of a chat turn', () => {
  it('reads the record once per reply: to take the lease, not to write or give it back', async () => {
    const rig = createRig();
    const host = rig.open();
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    const reads = vi.spyOn(rig.store, 'getEntry');
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect(await host.reply('chat_1', 'ann@example.com', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    expect(reads).toHaveBeenCalledTimes(1);
    expect(writes).toHaveBeenCalledTimes(3); // the lease taken, the answer, the lease given back
    expect(rig.asked.at(-1)).toBe('Which plan?');
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
