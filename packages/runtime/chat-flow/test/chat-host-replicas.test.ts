// Two chat-flow hosts (replicas) on one store: every turn acts on the committed record, never on a
// handle cached by an earlier turn, and a turn holds the chat's lease so no other replica's turn
// runs between its writes (issue 31, class 1); its last write gives the lease back, and a write
// after that takes it again only on the record the turn wrote (issue 36).
import { describe, expect, it, vi } from 'vitest';
import { createRig, gate, NOTES, readField } from './chat-helpers.js';

const fieldsOf = async (rig: ReturnType<typeof createRig>): Promise<unknown> => {
  const stored = (await rig.store.get('flow-session:c1')) as { data: { fields: unknown } };
  return stored.data.fields;
};

/** Waits (a bounded number of ticks) until a turn holds the lease of c1; `what` names what never came. */
async function leased(rig: ReturnType<typeof createRig>, what: string): Promise<void> {
  for (let tick = 0; tick < 200; tick++) {
    const stored = (await rig.store.get('flow-session:c1')) as { lease: unknown } | undefined;
    if (stored?.lease !== null && stored?.lease !== undefined) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(what);
}

describe('createChatFlowHost on two replicas', () => {
  it('acts on the committed record: a reply on a replica that opened the chat earlier is applied after the other replica’s', async () => {
    const rig = createRig();
    const a = rig.open();
    const b = rig.open();
    await a.start('c1', NOTES);
    await b.open('c1'); // b now holds a handle of the record as it was
    expect(await a.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    expect(await b.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: true, step: 'confirm' });
    expect(await fieldsOf(rig)).toMatchObject({ email: { email: 'ada@example.org' }, plan: { plan: 'pro' } });
  });

  it('refuses a message already processed on another replica as duplicate', async () => {
    const rig = createRig();
    const a = rig.open();
    const b = rig.open();
    await a.start('c1', NOTES);
    await b.open('c1');
    await a.reply('c1', 'ada@example.org', { messageId: 'm1' });
    expect(await b.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'duplicate',
    });
  });

  it('refuses lease_held while another replica’s turn holds the chat, and runs once it ended', async () => {
    const held = gate();
    const rig = createRig();
    const a = rig.open({
      read: async (text, ctx) => {
        await held.promise;
        return readField(text, ctx);
      },
    });
    const b = rig.open();
    await b.start('c1', NOTES);
    const first = a.reply('c1', 'ada@example.org', { messageId: 'm1' });
    await leased(rig, 'replica a never took the lease of c1');
    expect(await b.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: false, code: 'lease_held' });
    held.open();
    expect(await first).toMatchObject({ ok: true, step: 'plan' });
    expect(await b.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ ok: true, step: 'confirm' });
  });

  it('fences a replica whose turn outlived its lease: its write is refused lease_lost and nothing of it is stored', async () => {
    const held = gate();
    const rig = createRig();
    const slow = rig.open({
      turnLeaseMs: 1_000,
      read: async (text, ctx) => {
        await held.promise;
        return readField(text, ctx);
      },
    });
    const fast = rig.open({ turnLeaseMs: 1_000 });
    await fast.start('c1', NOTES);
    const late = slow.reply('c1', 'bob@example.org', { messageId: 'm1' });
    await leased(rig, 'the slow replica never took the lease of c1');
    rig.clock.advance(1_000); // the slow replica's lease expired
    expect(await fast.reply('c1', 'ada@example.org', { messageId: 'm2' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    held.open();
    expect(await late).toMatchObject({ ok: false, code: 'lease_lost' });
    expect(await fieldsOf(rig)).toEqual({ email: { email: 'ada@example.org' } });
  });

  it('takes the lease again for a write after the last known one, only on the record the turn wrote', async () => {
    const rig = createRig();
    const other = rig.open();
    let interleaved: unknown;
    const a = rig.open({
      ask: async (prompt, ctx) => {
        rig.asked.push(prompt);
        if (prompt !== 'Which plan?') return;
        // the answer gave the lease back: another replica's turn runs before this callback writes
        interleaved = await other.reply('c1', 'pro', { messageId: 'm2' });
        ctx.setData({ notes: ['asked'] });
      },
    });
    await a.start('c1', NOTES);
    expect(await a.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: false,
      code: 'conflict',
    });
    expect(interleaved).toMatchObject({ ok: true, step: 'confirm' });
    const stored = (await rig.store.get('flow-session:c1')) as { lease: unknown; data: { data: unknown } };
    expect(stored.lease).toBeNull();
    expect(stored.data.data).toMatchObject({ notes: [] }); // the late write was not applied
  });

  it('writes what `ask` set after the answer under the lease taken again, given back in that write', async () => {
    const rig = createRig();
    const a = rig.open({
      ask: (prompt, ctx) => {
        rig.asked.push(prompt);
        ctx.setData({ notes: [...ctx.data.notes, prompt] });
      },
    });
    await a.start('c1', NOTES);
    expect(await a.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'plan',
    });
    const stored = (await rig.store.get('flow-session:c1')) as { lease: unknown; data: { data: unknown } };
    expect(stored.lease).toBeNull();
    expect(stored.data.data).toMatchObject({ notes: ['Your email?', 'Which plan?'] });
  });

  it('takes the lease again for a submit from `ask` after the answer gave it back', async () => {
    const rig = createRig();
    const a = rig.open({
      ask: async (prompt, ctx) => {
        rig.asked.push(prompt);
        if (prompt === 'Which plan?') expect(await ctx.submit({ plan: 'pro' })).toMatchObject({ ok: true });
      },
    });
    await a.start('c1', NOTES);
    const writes = vi.spyOn(rig.store, 'compareAndSet');
    expect(await a.reply('c1', 'ada@example.org', { messageId: 'm1' })).toMatchObject({
      ok: true,
      step: 'confirm',
    });
    // the answer (no lease: nothing with effects ran before it); the lease for `ask`'s submit; the
    // submit; the lease given back
    expect(writes).toHaveBeenCalledTimes(4);
    const stored = (await rig.store.get('flow-session:c1')) as { lease: unknown };
    expect(stored.lease).toBeNull();
    expect(rig.asked).toEqual(['Your email?', 'Which plan?', 'Type YES']);
  });
});
