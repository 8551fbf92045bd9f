// describeFlowResult and toFlowAudit: one line per verdict of every kind, and the audit trail of a
// snapshot with ISO times.
import { createManualClock } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFlowSession, defineFlow, describeFlowResult, toFlowAudit } from '../src/index.js';

const flow = defineFlow({
  id: 'report',
  version: 1,
  steps: [
    {
      name: 'scope',
      prompt: 'Targets?',
      fields: z.object({ targets: z.array(z.string()).min(1), note: z.string().max(3).optional() }),
      onFailure: { action: 'manual_review', queue: 'unresolved', message: 'Queued for review' },
    },
    {
      name: 'confirm',
      prompt: 'YES?',
      parts: [
        { prompt: 'Confirm #1', fields: z.object({ confirm1: z.literal('YES') }) },
        { prompt: 'Confirm #2', fields: z.object({ confirm2: z.literal('YES') }) },
      ],
      onFailure: { action: 'back', to: 'scope', message: 'Back to the scope' },
    },
    {
      name: 'notify',
      prompt: 'Mode?',
      fields: z.object({ mode: z.enum(['none', 'email']) }),
      onFailure: { action: 'default', value: { mode: 'none' }, message: 'Defaulting to none' },
    },
    {
      name: 'close',
      prompt: 'Saved?',
      fields: z.object({ saved: z.boolean() }),
      exit: (fields) => fields.saved === true || 'The save failed',
    },
  ],
});

describe('describeFlowResult', () => {
  it('says what the flow decided, for every kind of verdict', () => {
    const session = createFlowSession(flow);
    const lines = [
      session.submit({ note: 'far too long' }),
      session.submit({ targets: ['x:1'] }),
      session.submit({ confirm1: 'YES' }),
      session.submit({ confirm2: 'yes' }),
      session.submit({ targets: ['x:1'] }),
      session.submit({ confirm1: 'YES' }),
      session.submit({ confirm2: 'YES' }),
      session.submit({ mode: 'fax' }),
      session.submit({ saved: false }),
      session.submit({ saved: true }),
      session.submit({}),
    ].map(describeFlowResult);
    expect(lines).toEqual([
      '✗ invalid_fields, manual_review → queue unresolved: missing targets; note: Too big: expected string to have <=3 characters',
      '✓ accepted → confirm',
      '✓ accepted → confirm (next answer)',
      expect.stringMatching(/^✗ invalid_fields, back → scope: confirm2/),
      '✓ accepted → confirm',
      '✓ accepted → confirm (next answer)',
      '✓ accepted → notify',
      '✓ failed, default taken → close',
      '✗ exit_failed, retry: The save failed',
      '✓ accepted → done',
      expect.stringMatching(/^✗ flow_done: /),
    ]);
  });
});

describe('toFlowAudit', () => {
  it('lists transitions, failures, notices and reviews with ISO times, as plain JSON', () => {
    const clock = createManualClock({ now: Date.UTC(2026, 3, 15, 9) });
    const session = createFlowSession(flow, { clock });
    session.submit({});
    clock.advance(1_000);
    session.submit({ targets: ['x:1'] });
    session.submit({ confirm1: 'nope' });
    const audit = toFlowAudit(session.snapshot());
    expect(audit.transitions).toEqual([
      { at: '2026-04-15T09:00:01.000Z', from: 'scope', to: 'confirm', event: 'submit' },
      { at: '2026-04-15T09:00:01.000Z', from: 'confirm', to: 'scope', event: 'back' },
    ]);
    expect(audit.failures).toEqual({ confirm: 1 }); // going back to scope discarded its count
    expect(audit.reviews).toEqual([
      expect.objectContaining({ step: 'scope', queue: 'unresolved', at: '2026-04-15T09:00:00.000Z' }),
    ]);
    expect(audit.notices).toEqual([]);
    expect(JSON.parse(JSON.stringify(audit))).toEqual(audit);
  });

  it('keeps the notices of default policies', () => {
    const session = createFlowSession(flow, { clock: createManualClock({ now: 0 }) });
    session.submit({ targets: ['x:1'] });
    session.submit({ confirm1: 'YES' });
    session.submit({ confirm2: 'YES' });
    session.submit({ mode: 'fax' });
    expect(toFlowAudit(session.snapshot()).notices).toEqual([
      { step: 'notify', message: 'Defaulting to none', at: '1970-01-01T00:00:00.000Z' },
    ]);
  });
});
