// createProgress and createChatDriver through the public API: waits that end on progress, the
// stall watchdog, bounds, and a driver that counts what the bus queued, clicks, and passes time.
import { createMessageBus } from '@parley/bus';
import { isParleyError } from '@parley/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createChatDriver,
  createFakeChannel,
  createFakeClock,
  createProgress,
  MAX_PROGRESS_WAITERS,
} from '../src/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createProgress', () => {
  it('resolves at once when the condition already holds', async () => {
    const progress = createProgress();
    await progress.waitFor(() => true, 'nothing');
    expect(progress.waiting).toBe(0);
  });

  it('re-checks on each poke and resolves only the waits whose condition holds', async () => {
    const progress = createProgress();
    let count = 0;
    const resolved: string[] = [];
    const one = progress.waitFor(() => count >= 1, 'one').then(() => resolved.push('one'));
    const two = progress.waitFor(() => count >= 2, 'two').then(() => resolved.push('two'));
    progress.poke();
    expect(progress.waiting).toBe(2);
    count = 1;
    progress.poke();
    await one;
    expect([resolved, progress.waiting]).toEqual([['one'], 1]);
    count = 2;
    progress.poke();
    await two;
    expect(resolved).toEqual(['one', 'two']);
  });

  it('rejects with stalled, naming what it waited for, when no progress comes in time', async () => {
    vi.useFakeTimers();
    const progress = createProgress({ stallMs: 5_000 });
    const waiting = progress.waitFor(() => false, 'the prompt').catch((error: unknown) => error);
    vi.advanceTimersByTime(5_000);
    const error = await waiting;
    expect(isParleyError(error, 'stalled')).toBe(true);
    expect((error as Error).message).toBe('Stalled: still waiting for the prompt');
    expect(progress.waiting).toBe(0);
  });

  it('refuses a bad stallMs and more than MAX_PROGRESS_WAITERS waits', async () => {
    for (const stallMs of [0, -1, 1.5, Number.NaN]) {
      expect(() => createProgress({ stallMs })).toThrow(
        expect.objectContaining({ code: 'invalid_argument' }),
      );
    }
    vi.useFakeTimers();
    const progress = createProgress();
    let done = false;
    const waits = Array.from({ length: MAX_PROGRESS_WAITERS }, () => progress.waitFor(() => done, 'x'));
    const refused = await progress.waitFor(() => done, 'one too many').catch((error: unknown) => error);
    expect(isParleyError(refused, 'invalid_argument')).toBe(true);
    done = true;
    progress.poke();
    await Promise.all(waits);
    expect(progress.waiting).toBe(0);
  });
});

describe('createChatDriver', () => {
  async function setUp(intercept = false) {
    const clock = createFakeClock({ now: Date.UTC(2026, 0, 5, 9) });
    const channel = createFakeChannel({ channel: 'feishu', clock });
    const bus = createMessageBus({ clock });
    if (intercept) bus.intercept({ name: 'eat', intercept: (m) => m.text === 'eaten' });
    await bus.attach(channel);
    await bus.publishOutbound({
      channel: 'feishu',
      chatId: 'oc_ops',
      text: 'confirm?',
      card: { title: 'Confirm', buttons: [{ label: '确认 Confirm', value: { ok: true } }] },
    });
    return { clock, channel, bus };
  }

  it('counts only what the bus queued, logs each action and pokes progress', async () => {
    const { clock, channel, bus } = await setUp(true);
    const lines: string[] = [];
    const progress = createProgress();
    const poke = vi.spyOn(progress, 'poke');
    const driver = createChatDriver({
      channel,
      chatId: 'oc_ops',
      clock,
      stepMs: 0,
      progress,
      log: (l) => lines.push(l),
    });
    expect((await driver.say('alice', 'hi')).status).toBe('queued');
    expect((await driver.say('alice', 'eaten')).status).toBe('intercepted');
    await driver.click('bob', /^确认/);
    await driver.click('bob', '确认 Confirm', 'oc_ops');
    expect(driver.queued).toBe(3);
    expect(lines).toEqual([
      'alice: hi',
      'alice: eaten',
      'bob clicks [确认 Confirm]',
      'bob clicks [确认 Confirm]',
    ]);
    expect(poke).toHaveBeenCalledTimes(4);
    expect(clock.now()).toBe(Date.UTC(2026, 0, 5, 9));
    await bus.close();
  });

  it('names another chat in the line, and the label when no button matches', async () => {
    const { channel, bus } = await setUp();
    const lines: string[] = [];
    const driver = createChatDriver({ channel, chatId: 'oc_ops', log: (l) => lines.push(l) });
    const error = await driver.click('bob', /^取消/, 'oc_finance').catch((e: unknown) => e);
    expect(isParleyError(error, 'no_button')).toBe(true);
    expect(lines).toEqual(['bob (in oc_finance) clicks [/^取消/]']);
    expect(driver.queued).toBe(0);
    await bus.close();
  });

  it('passes simulated time with a line, and refuses without a clock or with a bad time', async () => {
    const { clock, channel, bus } = await setUp();
    const lines: string[] = [];
    const driver = createChatDriver({ channel, chatId: 'oc_ops', clock, log: (l) => lines.push(l) });
    driver.pass(300_000, '5 minutes pass');
    expect(clock.now()).toBe(Date.UTC(2026, 0, 5, 9, 5));
    expect(lines).toEqual(['(5 minutes pass)']);
    expect(() => driver.pass(-1, 'back')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    const realTime = createChatDriver({ channel, chatId: 'oc_ops' });
    expect(() => realTime.pass(1, 'x')).toThrow(expect.objectContaining({ code: 'clock_required' }));
    expect(() => createChatDriver({ channel, chatId: 'oc_ops', stepMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    await bus.close();
  });
});
