import { createCallLog } from '@parley/testing/loopback';
import { describe, expect, it } from 'vitest';

interface Call {
  readonly method: string;
  readonly text: string;
}

const closed = (method: string): Error => new Error(`closed before ${method}`);

describe('createCallLog', () => {
  it('keeps calls by method, oldest first, and answers a waiter once its call is made', async () => {
    const log = createCallLog<Call>(closed);
    const second = log.waitFor('sendMessage', 2, false);
    log.record({ method: 'sendMessage', text: 'one' });
    log.record({ method: 'editMessageText', text: 'edit' });
    log.record({ method: 'sendMessage', text: 'two' });
    expect((await second).text).toBe('two');
    expect(log.callsOf('sendMessage').map((call) => call.text)).toEqual(['one', 'two']);
    expect(await log.waitFor('editMessageText', 1, true)).toEqual({
      method: 'editMessageText',
      text: 'edit',
    });
  });

  it('rejects a wait for a call not made once the stand-in is closed, and every waiter left on close', async () => {
    const log = createCallLog<Call>(closed);
    await expect(log.waitFor('deleteMessage', 1, true)).rejects.toThrow('closed before deleteMessage');
    const waiting = log.waitFor('answerCallbackQuery', 1, false);
    log.rejectWaiters();
    await expect(waiting).rejects.toThrow('closed before answerCallbackQuery');
    log.record({ method: 'answerCallbackQuery', text: 'late' }); // no waiter is left to settle
    expect(log.callsOf('answerCallbackQuery')).toHaveLength(1);
  });
});
