import { describe, expect, it } from 'vitest';
import { isParleyError } from '@parley/core';
import { createFeishuAdapter, type FeishuClient } from '../src/index.js';

const client: FeishuClient = {
  im: { message: { create: async () => ({ code: 0 }), reply: async () => ({ code: 0 }) } },
};

describe('createFeishuAdapter', () => {
  it('refuses an empty bot open id', () => {
    let error: unknown;
    try {
      createFeishuAdapter({ client, botOpenId: '' });
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it('refuses a limit of remembered messages that is not a positive integer', () => {
    for (const bad of [0, 1.5, Number.NaN]) {
      expect(() => createFeishuAdapter({ client, botOpenId: 'ou_bot', maxRememberedMessages: bad })).toThrow(
        /maxRememberedMessages/,
      );
    }
  });

  it('forgets the oldest remembered message past the limit', async () => {
    const adapter = createFeishuAdapter({ client, botOpenId: 'ou_bot', maxRememberedMessages: 1 });
    const seen: unknown[] = [];
    adapter.connect?.(async (input) => {
      seen.push(input.threadId);
      return { status: 'rejected', code: 'invalid_message' };
    });
    const message = (id: string) => ({
      sender: { sender_id: { user_id: 'u_1' } },
      message: { message_id: id, chat_id: 'oc', root_id: 'om_r', thread_id: 'omt', content: '{}' },
    });
    await adapter.handles['im.message.receive_v1'](message('om_1'));
    await adapter.handles['im.message.receive_v1'](message('om_2'));
    await adapter.handles['im.message.recalled_v1']({ message_id: 'om_1', chat_id: 'oc' });
    await adapter.handles['im.message.recalled_v1']({ message_id: 'om_2', chat_id: 'oc' });
    expect(seen).toEqual(['om_r', 'om_r', undefined, 'om_r']);
  });

  it('reads a click without a value as null and uses the host’s toast', async () => {
    const adapter = createFeishuAdapter({ client, botOpenId: 'ou_bot', toast: () => ({}) });
    const actions: unknown[] = [];
    adapter.connect?.(async (input) => {
      actions.push(input.action);
      return { status: 'rejected', code: 'invalid_message' };
    });
    expect(
      await adapter.handleCardAction({ open_id: 'ou_a', open_chat_id: 'oc', action: { tag: 'button' } }),
    ).toEqual({});
    expect(actions).toEqual([null]);
  });
});
