import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createToolGate } from '../src/index.js';
import { createDataModify } from './helpers.js';

describe('process: confirmTimeoutMs', () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 2 ** 31])(
    'refuses confirmTimeoutMs %s when the batch is registered, before any call is judged',
    async (confirmTimeoutMs) => {
      const asked: unknown[] = [];
      const { dataModify, statements } = createDataModify();
      const gate = createToolGate({
        tools: [dataModify],
        allowlist: ['data_modify'],
        confirm: (request) => {
          asked.push(request);
          return true;
        },
      });
      const batch = gate.process([{ id: 'call_1', tool: 'data_modify', args: { sql: 'DELETE FROM t' } }], {
        turn: 1,
        context: undefined,
        confirmTimeoutMs,
      });
      await expect(batch).rejects.toSatisfy((error: unknown) => isParleyError(error, 'invalid_timeout'));
      expect(asked).toEqual([]);
      expect(statements).toEqual([]);
    },
  );

  it('accepts the largest timeout a timer can hold', async () => {
    const { dataModify } = createDataModify();
    const gate = createToolGate({ tools: [dataModify], allowlist: ['data_modify'], confirm: () => true });
    const result = await gate.process([{ id: 'call_1', tool: 'data_modify', args: { sql: 'SELECT 1' } }], {
      turn: 1,
      context: undefined,
      confirmTimeoutMs: 2 ** 31 - 1,
    });
    expect(result.feedback.failed_calls).toEqual([]);
  });
});
