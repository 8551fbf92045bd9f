import { describe, expect, it, vi } from 'vitest';
import { DWClient } from 'dingtalk-stream';
import { isParleyError } from '@parley/core';
import { createDingTalkAdapter } from '../src/index.js';

const client = (): DWClient => new DWClient({ clientId: 'dingq7xbm2kz4frsel0n', clientSecret: 'secret' });

describe('createDingTalkAdapter', () => {
  it('refuses an empty robot code', () => {
    let error: unknown;
    try {
      createDingTalkAdapter({ client: client(), robotCode: '' });
    } catch (caught) {
      error = caught;
    }
    expect(isParleyError(error, 'invalid_argument')).toBe(true);
  });

  it('refuses a limit of remembered chats that is not a positive integer', () => {
    for (const bad of [0, 2.5]) {
      expect(() => createDingTalkAdapter({ client: client(), robotCode: 'r', maxRemembered: bad })).toThrow(
        /maxRemembered/,
      );
    }
  });

  it('serves the dingtalk channel by default', () => {
    expect(createDingTalkAdapter({ client: client(), robotCode: 'r' }).channel).toBe('dingtalk');
  });

  it('rejects send_failed, with the cause, when the OpenAPI cannot be reached (https or http)', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    for (const apiBase of ['https://127.0.0.1:1', 'http://127.0.0.1:1']) {
      const adapter = createDingTalkAdapter({ client: client(), robotCode: 'r', apiBase });
      const message = {
        channel: 'dingtalk',
        chatId: 'cid',
        sessionKey: 'dingtalk:cid',
        createdAt: 0,
        text: 'x',
      };
      let error: unknown;
      try {
        await adapter.send(message);
      } catch (caught) {
        error = caught;
      }
      expect(isParleyError(error, 'send_failed')).toBe(true);
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
    vi.restoreAllMocks();
  });
});
