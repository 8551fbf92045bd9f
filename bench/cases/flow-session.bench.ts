// A stored flow session's round trip on the memory store: write an answer with compare-and-set,
// then resume the session from its record (what a chat host does per message after a restart),
// against the hand-written version the cleanup example had (flow.submit + compareAndSet, then
// getEntry + flow.restore). The difference is what the record checks and drafts cost.
import { createMemoryStore, type JsonValue } from '@parley/core';
import { defineFlow, type FlowSnapshot } from '@parley/fsm';
import { createFlowSessionStore } from '@parley/chat-flow';
import { z } from 'zod';
import { suite } from '../lib.js';

const flow = defineFlow({
  id: 'intake',
  version: 1,
  steps: [
    {
      name: 'goal',
      prompt: 'Goal?',
      fields: z.object({ goal: z.string(), where: z.array(z.string()).min(1) }),
    },
    { name: 'notify', prompt: 'Notify?', fields: z.object({ mode: z.enum(['none', 'email']) }) },
  ],
});
const ANSWER = { goal: 'remove the reposts', where: ['x.com'] };

suite('fsm: stored flow session (submit + save, then resume)', {
  cases: {
    'parley createFlowSessionStore': () => {
      const store = createMemoryStore();
      const sessions = createFlowSessionStore(flow, { store, draftSteps: ['goal'] });
      let n = 0;
      return async () => {
        const id = `s${n++}`;
        const started = await sessions.start(id, { data: null });
        if (!started.ok) throw new Error(started.reason);
        await started.session.submit(ANSWER);
        const resumed = await sessions.resume(id);
        if (!resumed.ok) throw new Error(resumed.reason);
        return resumed.session.step;
      };
    },
    'hand-written submit + compareAndSet + restore': () => {
      const store = createMemoryStore();
      let n = 0;
      return async () => {
        const key = `s${n++}`;
        const start = flow.start();
        const first = await store.compareAndSet(key, null, {
          flow: start,
          data: null,
        } as unknown as JsonValue);
        const result = flow.submit(start, ANSWER);
        await store.compareAndSet(key, first.ok ? first.version : null, {
          flow: result.snapshot,
          data: null,
        } as unknown as JsonValue);
        const entry = await store.getEntry(key);
        const value = entry?.value as { flow: FlowSnapshot } | undefined;
        const restored = flow.restore(value?.flow);
        return restored.state;
      };
    },
  },
  goals: [
    {
      case: 'parley createFlowSessionStore',
      vs: 'hand-written submit + compareAndSet + restore',
      slowerByAtMost: 2,
    },
  ],
});
