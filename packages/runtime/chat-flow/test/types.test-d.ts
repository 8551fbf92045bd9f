import { createMemoryStore } from '@parley/core';
import { defineFlow, type FlowSnapshot } from '@parley/fsm';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createChatFlowHost, createFlowSessionStore, type FlowSessionRecord } from '../src/index.js';

describe('createChatFlowHost', () => {
  const flow = defineFlow({
    id: 'f',
    version: 1,
    steps: [
      { name: 'email', prompt: '?', fields: z.object({ email: z.string() }) },
      { name: 'plan', prompt: '?', fields: z.object({ plan: z.string() }) },
    ],
  });
  const sessions = createFlowSessionStore<'email' | 'plan', unknown, { n: number }>(flow, {
    store: createMemoryStore(),
  });

  it('types the steps and the data its callbacks see from the sessions', () => {
    const host = createChatFlowHost({
      sessions,
      read: (_text, ctx) => {
        expectTypeOf(ctx.data).toEqualTypeOf<{ n: number }>();
        expectTypeOf(ctx.session.step).toEqualTypeOf<'email' | 'plan' | 'done'>();
        return undefined;
      },
      after: (done) => {
        expectTypeOf(done.step).toEqualTypeOf<'email' | 'plan'>();
      },
    });
    // @ts-expect-error the data of a new session is the sessions' data
    void host.start('c1', { n: 'one' });
  });

  it('takes its limits as numbers', () => {
    createChatFlowHost({ sessions, read: () => undefined, maxSessions: 100, maxDecodedSessions: 10 });
    // @ts-expect-error a limit is a number
    createChatFlowHost({ sessions, read: () => undefined, maxDecodedSessions: '10' });
  });
});

describe('the stored record (format 5)', () => {
  it('has no field of the flow snapshot named as one of the record’s own, so both fit in one object', () => {
    // format 5 stores the snapshot's fields beside the record's own (`rev` is the stored revision)
    type Own = Exclude<keyof FlowSessionRecord, 'kind' | 'format' | 'flow'> | 'rev';
    expectTypeOf<Extract<keyof FlowSnapshot<string, unknown>, Own>>().toEqualTypeOf<never>();
    expectTypeOf<Own>().toEqualTypeOf<'id' | 'draft' | 'data' | 'retry' | 'expiresAt' | 'savedAt' | 'rev'>();
  });
});
