import { describe, expect, it, vi } from 'vitest';
import { createRig, readField } from './chat-helpers.js';

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
    expect(writes).toHaveBeenCalledTimes(1); // the answer, by compare-and-set alone (no callback with effects)
    expect(rig.asked.at(-1)).toBe('Which plan?');
  });

  it('gives the lease back with the last write of a turn: another replica may take it right after', async () => {
    const rig = createRig();
    const host = rig.open();
    const other = rig.open(); // a second host on the same store: another replica
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect((await host.reply('chat_1', 'not an email', { messageId: 'm1' })).ok).toBe(true);
    expect(writes).toHaveBeenCalledTimes(1); // a refused answer is written with its message id too
    expect(await other.reply('chat_1', 'ann@example.com', { messageId: 'm2' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
  });

  it('keeps the lease past the answer while `after` runs: its effects are claimed under it', async () => {
    const rig = createRig();
    const host = rig.open({ after: async (_done, ctx) => void (await ctx.effect('mail', () => 1)) });
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect((await host.reply('chat_1', 'ann@example.com', { messageId: 'm1' })).ok).toBe(true);
    // the lease, the answer, the claim, the claim marked done (giving the lease back)
    expect(writes).toHaveBeenCalledTimes(4);
    expect(rig.events.map((e) => e.event)).toContain('effect-done');
  });

  it('starts a session with one write and no read: the record created where none is stored', async () => {
    const rig = createRig();
    const host = rig.open();
    const reads = vi.spyOn(rig.store, 'getEntry');
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    expect(reads).not.toHaveBeenCalled();
    expect(writes).toHaveBeenCalledTimes(1);
    expect(rig.asked).toEqual(['Your email?']);
    expect(await host.start('chat_1', { notes: [] })).toMatchObject({ ok: false, code: 'exists' });
  });

  it('takes the lease for `begin` on the record it created, and gives it back with the last write', async () => {
    const rig = createRig();
    const host = rig.open({
      begin: (ctx) => {
        ctx.setData({ notes: ['begun'] });
        return undefined;
      },
    });
    const reads = vi.spyOn(rig.store, 'getEntry');
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect((await host.start('chat_1', { notes: [] })).ok).toBe(true);
    expect(reads).not.toHaveBeenCalled();
    expect(writes).toHaveBeenCalledTimes(3); // the record, the lease, the data (giving the lease back)
    expect(await rig.store.get('flow-session:chat_1')).toMatchObject({ lease: null });
  });

  it('reads the record once when another writer changed it: the lost write reads it, the lease is taken on it', async () => {
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

  it("shows callbacks the host's data without its ledger, split off once per turn", async () => {
    const rig = createRig();
    const seen: unknown[] = [];
    const host = rig.open({
      read: (text, ctx) => {
        seen.push(ctx.data, ctx.data);
        return readField(text, ctx);
      },
      ask: (_prompt, ctx) => void seen.push(ctx.data),
    });
    await host.start('chat_1', null as never); // data that is no object: given as it is
    expect(seen).toEqual([null]);
    await host.reply('chat_1', 'ann@example.com', { messageId: 'm1' });
    expect(seen.slice(1, 4)).toEqual([null, null, null]); // the start wrote no ledger
    await host.reply('chat_1', 'pro', { messageId: 'm2' });
    expect(seen.slice(4)).toEqual([{}, {}, {}]); // the record's data is the ledger alone now
    expect(seen[5]).toBe(seen[4]); // split once per turn
    const record = (await rig.store.get('flow-session:chat_1')) as { data: { data: object } };
    expect(Object.keys(record.data.data)).toEqual(['chatFlow']);
  });
});
