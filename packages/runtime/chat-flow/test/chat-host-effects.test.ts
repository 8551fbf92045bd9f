// Effects claimed before they run, on the Store: run once per step even when a reply is delivered
// twice or the process restarts between the effect and the save; an unknown outcome is reported and
// never run again by itself; a restarted host asks the current question again.
import { describe, expect, it } from 'vitest';
import {
  type ChatFlowHost,
  type ChatFlowHostOptions,
  type ChatFlowLedger,
  DEFAULT_TURN_LEASE_MS,
} from '../src/index.js';
import { createRig, type Data, NOTES, named, type Rig, type Step } from './chat-helpers.js';

type Options = Partial<ChatFlowHostOptions<Step, unknown, Data>>;

/** A host whose completion of `plan` mails a welcome through a claimed effect. */
function mailer(
  rig: Rig,
  mail: (ledger: unknown) => void | Promise<void>,
  more: Options = {},
): ChatFlowHost<Data> {
  return rig.open({
    after: async (done, ctx) => {
      if (done.step === 'plan') {
        await ctx.effect('welcome', async () => mail((await rig.store.get('flow-session:c1')) as unknown));
      }
    },
    ...more,
  });
}

const ledgerOf = async (rig: Rig): Promise<ChatFlowLedger> =>
  ((await rig.store.get('flow-session:c1')) as unknown as { data: { data: { chatFlow: ChatFlowLedger } } })
    .data.data.chatFlow;

const toPlan = async (host: ChatFlowHost<Data>): Promise<void> => {
  await host.start('c1', NOTES);
  await host.reply('c1', 'ada@example.org', { messageId: 'm1' });
};

describe('chat-flow effects', () => {
  it('writes the claim before the effect runs and marks it done with the next write', async () => {
    const rig = createRig();
    const seen: unknown[] = [];
    const host = mailer(rig, (record) => void seen.push(record));
    await toPlan(host);
    await host.reply('c1', 'pro', { messageId: 'm2' });
    expect(seen).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          data: expect.objectContaining({
            chatFlow: expect.objectContaining({
              effect: expect.objectContaining({ name: 'welcome', state: 'running' }),
            }),
          }),
        }),
      }),
    ]);
    expect((await ledgerOf(rig)).effect).toMatchObject({
      name: 'welcome',
      step: 'confirm',
      state: 'done',
      doneAt: 1_000,
    });
    expect(named(rig, 'effect-claimed')).toHaveLength(1);
    expect(named(rig, 'effect-done')).toEqual([
      { id: 'c1', name: 'welcome', step: 'confirm', part: 0, at: 1_000 },
    ]);
  });

  it('claims with the completing write when claims names the effect: no extra write', async () => {
    const rig = createRig();
    const host = mailer(rig, () => undefined, {
      claims: ({ step }) => (step === 'plan' ? 'welcome' : undefined),
    });
    await toPlan(host);
    const result = await host.reply('c1', 'pro', { messageId: 'm2' });
    // lease taken, submit, the done mark giving the lease back: after the 4 writes of the start and
    // first reply (the create; lease, answer, lease back: `after` runs under the lease)
    expect(result).toMatchObject({ ok: true, step: 'confirm', version: 7 });
    expect(named(rig, 'effect-claimed')).toEqual([
      { id: 'c1', name: 'welcome', step: 'plan', part: 0, at: 1_000 },
    ]);
    expect((await ledgerOf(rig)).effect).toMatchObject({ state: 'done' });
  });

  it('answers ctx.submit with a rejected promise when claims throws, never a throw', async () => {
    const rig = createRig();
    let submitted: Promise<unknown> | undefined;
    let asked = 0;
    const host = rig.open({
      claims: () => {
        if (++asked > 1) throw new Error('no claims today'); // the reply's own submit asks first
        return undefined;
      },
      after: async (_done, ctx) => {
        if (submitted !== undefined) return;
        expect(() => {
          submitted = ctx.submit({ plan: 'pro' });
        }).not.toThrow();
        await expect(submitted).rejects.toThrow('no claims today');
      },
    });
    await host.start('c1', NOTES);
    const result = await host.reply('c1', 'ada@example.org', { messageId: 'm1' });
    expect(result).toMatchObject({ ok: true, step: 'plan' });
    expect(submitted).toBeDefined();
  });

  it('runs the effect once when the same message is delivered twice', async () => {
    const rig = createRig();
    const mails: number[] = [];
    const host = mailer(rig, () => void mails.push(1));
    await toPlan(host);
    await host.reply('c1', 'pro', { messageId: 'm2' });
    await host.reply('c1', 'pro', { messageId: 'm2' });
    const restarted = mailer(rig, () => void mails.push(2));
    await restarted.open('c1');
    expect(await restarted.reply('c1', 'pro', { messageId: 'm2' })).toMatchObject({ code: 'duplicate' });
    expect(mails).toEqual([1]);
  });

  it('reports a claim found without done after a restart and never runs the effect again by itself', async () => {
    const rig = createRig();
    const mails: string[] = [];
    const first = mailer(rig, () => {
      mails.push('first');
      return new Promise<void>(() => undefined); // the process dies while the mail is out
    });
    await toPlan(first);
    void first.reply('c1', 'pro', { messageId: 'm2' });
    for (let tick = 0; tick < 100 && mails.length === 0; tick++) await new Promise((r) => setImmediate(r));
    expect(mails).toEqual(['first']); // the mail went out before the process died
    first.close();
    // the dead process's turn still holds the session's lease: a new process waits until it expired
    expect(await mailer(rig, () => undefined).open('c1')).toMatchObject({ ok: false, code: 'lease_held' });
    rig.clock.advance(DEFAULT_TURN_LEASE_MS);

    const second = mailer(rig, () => void mails.push('second'), { after: undefined });
    expect(await second.open('c1')).toMatchObject({ ok: true, step: 'confirm' });
    expect(named(rig, 'outcome-unknown')).toEqual([
      { id: 'c1', name: 'welcome', step: 'confirm', part: 0, claimedAt: 1_000 },
    ]);
    expect(rig.asked.at(-1)).toBe('Type YES'); // asked again
    // another effect waits until a person settles the unknown one
    const third = rig.open({
      read: async (_t, ctx) => void (await ctx.effect('other', () => mails.push('other'))),
    });
    expect(await third.reply('c1', 'anything')).toMatchObject({ ok: false, code: 'outcome_unknown' });
    expect(mails).toEqual(['first']);
  });

  it('settles an unknown outcome by resolveEffect: done keeps it, not_done allows a new run', async () => {
    const rig = createRig();
    const host = mailer(rig, () => Promise.reject(new Error('smtp timeout')));
    await toPlan(host);
    expect(await host.reply('c1', 'pro')).toMatchObject({ ok: false, code: 'callback_failed' });
    expect(named(rig, 'outcome-unknown')).toHaveLength(1);
    expect((await ledgerOf(rig)).effect).toMatchObject({ state: 'running' });
    const runs: string[] = [];
    const again = rig.open({
      read: async (_t, ctx) => void (await ctx.effect('welcome', () => runs.push('again'))),
    });
    expect(await again.resolveEffect('c1', 'not_done')).toMatchObject({ ok: true });
    expect((await ledgerOf(rig)).effect).toBeNull();
    await again.reply('c1', 'retry');
    expect(runs).toEqual(['again']);
    expect(await again.resolveEffect('c1', 'done')).toMatchObject({ ok: false, code: 'not_claimed' });
  });

  it('marks an unknown outcome done when a person says it happened', async () => {
    const rig = createRig();
    const host = mailer(rig, () => Promise.reject(new Error('smtp timeout')));
    await toPlan(host);
    await host.reply('c1', 'pro');
    expect(await host.resolveEffect('c1', 'done')).toMatchObject({ ok: true });
    expect((await ledgerOf(rig)).effect).toMatchObject({ state: 'done', doneAt: 1_000 });
  });

  it('does not claim on completion while an earlier outcome is unknown', async () => {
    const rig = createRig();
    const claims = ({ step }: { step: Step }) => (step === 'plan' ? 'welcome' : undefined);
    const failing = mailer(rig, () => Promise.reject(new Error('down')));
    await toPlan(failing);
    await failing.reply('c1', 'pro');
    const host = mailer(rig, () => undefined, { claims });
    expect(await host.reply('c1', 'YES')).toMatchObject({ ok: true, step: 'done' });
    expect(named(rig, 'effect-claimed')).toHaveLength(1);
  });

  it('releases a claim made on completion that after did not use, or used under another name', async () => {
    const rig = createRig();
    const ran: string[] = [];
    const host = rig.open({
      claims: () => 'welcome',
      after: async (done, ctx) => {
        if (done.step === 'plan') await ctx.effect('other', () => void ran.push('other'));
      },
    });
    await host.start('c1', NOTES);
    await host.reply('c1', 'ada@example.org'); // claimed, unused: released
    expect((await ledgerOf(rig)).effect).toBeNull();
    await host.reply('c1', 'pro'); // claimed 'welcome', used 'other': released, then claimed anew
    expect(ran).toEqual(['other']);
    expect((await ledgerOf(rig)).effect).toMatchObject({ name: 'other', state: 'done' });
  });

  it('runs nothing when the claim cannot be written', async () => {
    const rig = createRig();
    const mails: number[] = [];
    const host = rig.open({
      after: async (done, ctx) => {
        if (done.step !== 'plan') return;
        rig.store.fail('compareAndSet', 2); // the claim's write and its one retry
        await ctx.effect('welcome', () => void mails.push(1));
      },
    });
    await toPlan(host);
    expect(await host.reply('c1', 'pro')).toMatchObject({ ok: false, code: 'store_failed' });
    expect(mails).toEqual([]);
    expect((await ledgerOf(rig)).effect).toBeNull();
  });
});

describe('chat-flow restart on the Store', () => {
  it('asks the current question again, with the draft and data as stored', async () => {
    const rig = createRig();
    const first = rig.open();
    await first.start('c1', { notes: ['n'] });
    await first.reply('c1', 'ada@example.org');
    first.close();
    const begun: string[] = [];
    const second = rig.open({ begin: (ctx, how) => void begun.push(`${how}:${ctx.data.notes.join()}`) });
    // 1 created, 2 the reply (one compare-and-set), 3–4 this turn's lease
    expect(await second.open('c1')).toMatchObject({ ok: true, step: 'plan', version: 4 });
    expect(begun).toEqual(['resume:n']);
    expect(rig.asked).toEqual(['Your email?', 'Which plan?', 'Which plan?']);
    expect(named(rig, 'outcome-unknown')).toEqual([]);
    expect(await second.reply('c1', 'pro')).toMatchObject({ ok: true, step: 'confirm' });
  });
});
