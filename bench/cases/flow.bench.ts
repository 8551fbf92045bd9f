import { createFlowSession, defineFlow } from '@parley/fsm';
import { z } from 'zod';
import { suite } from '../lib.js';

// A three-step intake, answered step by step; when it is done a new session starts.
const Goal = z.object({ goal: z.string().min(3) });
const Scope = z.object({ scope: z.enum(['all', 'mine']) });
const Notify = z.object({ notify_mode: z.enum(['none', 'telegram']) });
const answers = [{ goal: 'remove reposts' }, { scope: 'mine' }, { notify_mode: 'none' }];

const flow = defineFlow({
  id: 'intake',
  version: 1,
  steps: [
    { name: 'goal', prompt: 'What do you want?', fields: Goal },
    { name: 'scope', prompt: 'All posts or yours?', fields: Scope },
    { name: 'notify', prompt: 'Notify how?', fields: Notify },
  ],
});

suite('flow: one answer submitted (3-step flow, cycled)', {
  cases: {
    /**
     * The session (defaults): validates the answer against the step's schema, records the fields,
     * moves to the next step, keeps the history with timestamps and a new plain-JSON snapshot.
     */
    'parley session.submit': () => {
      let session = createFlowSession(flow);
      let n = 0;
      return () => {
        if (session.done) session = createFlowSession(flow);
        return session.submit(answers[n++ % 3]);
      };
    },
    /** By hand: the steps' schemas in an array, zod `safeParse`, the fields merged, the index moved. */
    'array of schemas + safeParse': () => {
      const schemas = [Goal, Scope, Notify];
      let step = 0;
      let fields: Record<string, unknown> = {};
      let n = 0;
      return () => {
        if (step === schemas.length) {
          step = 0;
          fields = {};
        }
        const parsed = (schemas[step] as z.ZodType).safeParse(answers[n++ % 3]);
        if (!parsed.success) return { ok: false, issues: parsed.error.issues };
        fields = { ...fields, ...(parsed.data as object) };
        step++;
        return { ok: true, step };
      };
    },
  },
  goals: [{ case: 'parley session.submit', vs: 'array of schemas + safeParse', slowerByAtMost: 3 }],
});
