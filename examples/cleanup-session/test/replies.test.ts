// The readers of replies and the target normaliser: they extract, and leave out what is not there.
import { describe, expect, it } from 'vitest';
import { readAnswer, readExecuteCommand } from '../src/replies.js';
import { normalizeTarget, resolveScope } from '../src/targets.js';
import { redactJson, redactText } from '../src/redact.js';

describe('normalizeTarget', () => {
  it.each([
    ['http://www.twitter.com/Someone/status/42?s=20&utm_source=x#top', 'https://x.com/someone/status/42'],
    ['x.com/someone/status/42/', 'https://x.com/someone/status/42'],
    ['https://youtu.be/dQw4w9WgXcQ?si=abc', 'https://youtube.com/watch?v=dQw4w9WgXcQ'],
    ['https://m.youtube.com/watch?v=abc&t=10&list=PL1', 'https://youtube.com/watch?list=PL1&v=abc'],
    ['https://old.reddit.com/r/a/comments/b/', 'https://reddit.com/r/a/comments/b'],
    ['Twitter:123', 'x:123'],
    ['https://Example.org/Path/To#frag', 'https://example.org/Path/To'],
  ])('turns %s into %s', (input, target) => {
    expect(normalizeTarget(input)).toMatchObject({ ok: true, target });
  });

  it.each([
    ['my old blog', 'not a URL or a platform:id'],
    ['ftp://files.example.org/a', 'not a URL or a platform:id'],
    ['myspace:123', '"myspace" is not a platform this host can act on'],
    ['web:1', '"web" is not a platform this host can act on'],
  ])('leaves %s unresolved', (input, reason) => {
    expect(normalizeTarget(input)).toEqual({ ok: false, input, reason });
  });

  it('resolves the platforms from the targets when none is named, and refuses unknown platform names', () => {
    expect(resolveScope([], ['x:1', 'https://t.me/chan/5'])).toEqual({
      platforms: ['x', 'telegram'],
      targets: ['x:1', 'https://t.me/chan/5'],
      unresolved: [],
    });
    expect(resolveScope(['myspace'], ['x:1']).unresolved).toEqual([
      { input: 'myspace', reason: 'not a platform this host knows' },
    ]);
  });
});

describe('readAnswer', () => {
  it('reads a goal type by keyword and leaves it out when none is said', () => {
    expect(readAnswer('goal', 0, 'Takedown: my photos reposted on X')).toEqual({
      goal_type: 'dmca_takedown',
      intent_summary: 'my photos reposted on X',
    });
    expect(readAnswer('goal', 0, 'get rid of my photos on X')).toEqual({
      intent_summary: 'get rid of my photos on X',
    });
  });

  it('splits platforms from targets and drops filler words', () => {
    expect(readAnswer('platform-scope', 0, 'reddit and x: x:1, https://x.com/a/status/2; blog')).toEqual({
      platforms: ['reddit', 'x'],
      targets: ['x:1', 'https://x.com/a/status/2', 'blog'],
    });
  });

  it('reads the auth mode, the reference and consent, and only what is there', () => {
    expect(readAnswer('auth', 0, 'session proof:abc123, I agree')).toEqual({
      auth_mode: 'session',
      session_proof: 'proof:abc123',
      consent_ack: true,
    });
    expect(readAnswer('auth', 0, 'oauth')).toEqual({ auth_mode: 'oauth' });
  });

  it('reads evidence references, the statement and the authenticity confirmation apart', () => {
    const targets = ['x:1'];
    expect(
      readAnswer('evidence', 0, 'ev1, ev-2 They copy my work. I confirm this is authentic.', { targets }),
    ).toEqual({
      evidence_refs: ['ev1', 'ev-2'],
      justifications: { 'x:1': { evidence_refs: ['ev1', 'ev-2'], statement: 'They copy my work.' } },
      user_statement_authenticity_ack: true,
    });
    expect(readAnswer('evidence', 0, 'every event is evident', { targets })).toEqual({
      justifications: { 'x:1': { statement: 'every event is evident' } },
    });
  });

  it("reads each target's own evidence and statement, marked by its number or by the target", () => {
    const targets = ['https://x.com/a/status/1', 'x:2', 'x:3'];
    const text =
      'Both copy my photos. #1 ev1 this post copies my photo. x:2: ev2, ev3 this one too; #3 ev4 and this. I confirm this is authentic.';
    expect(readAnswer('evidence', 0, text, { targets })).toEqual({
      evidence_refs: ['ev1', 'ev2', 'ev3', 'ev4'],
      justifications: {
        'https://x.com/a/status/1': { evidence_refs: ['ev1'], statement: 'this post copies my photo.' },
        'x:2': { evidence_refs: ['ev2', 'ev3'], statement: 'this one too' },
        'x:3': { evidence_refs: ['ev4'], statement: 'and this.' },
      },
      user_statement_authenticity_ack: true,
    });
  });

  it('gives no target a statement nobody marked for it when the scope has several', () => {
    const answer = readAnswer('evidence', 0, 'ev1 These posts copy my photos.', { targets: ['x:1', 'x:2'] });
    expect(answer).toEqual({ evidence_refs: ['ev1'], justifications: {} });
  });

  it('keeps the justifications of the draft, so a reply only adds the missing target', () => {
    const draft = {
      evidence_refs: ['ev1'],
      justifications: { 'x:1': { evidence_refs: ['ev1'], statement: 'copies my photo' } },
    };
    expect(readAnswer('evidence', 0, '#2 ev2 copies my text', { targets: ['x:1', 'x:2'], draft })).toEqual({
      evidence_refs: ['ev1', 'ev2'],
      justifications: {
        ...draft.justifications,
        'x:2': { evidence_refs: ['ev2'], statement: 'copies my text' },
      },
    });
  });

  it('passes a confirmation through untouched, for the flow to judge', () => {
    expect(readAnswer('risk-confirm', 2, ' yes ')).toEqual({ confirm3: ' yes ' });
  });

  it('reads export choices, and a bare yes as the answer after "ask"', () => {
    expect(readAnswer('export-decision', 0, 'ask')).toEqual({ export_before_delete: 'ask' });
    expect(readAnswer('export-decision', 0, 'ask, no')).toEqual({
      export_before_delete: 'ask',
      export_answer: 'no',
    });
    expect(readAnswer('export-decision', 0, 'yes', { draft: { export_before_delete: 'ask' } })).toEqual({
      export_answer: 'yes',
    });
    expect(readAnswer('export-decision', 0, 'maybe', { draft: { export_before_delete: 'ask' } })).toEqual({});
    expect(readAnswer('export-decision', 0, '取消')).toEqual({ export_before_delete: 'no' });
    expect(readAnswer('export-decision', 0, 'perhaps')).toEqual({});
  });

  it('takes only a clear go as the manual trigger', () => {
    expect(readAnswer('execute', 0, 'Go ahead.', { planRef: 'plan_1' })).toEqual({
      manual_trigger: true,
      execution_plan_ref: 'plan_1',
    });
    expect(readAnswer('execute', 0, 'go ahead and delete everything else too')).toMatchObject({
      manual_trigger: false,
    });
    expect(readExecuteCommand('Retry!')).toBe('retry');
    expect(readExecuteCommand('manual')).toBe('manual');
    expect(readExecuteCommand('maybe later')).toBeUndefined();
  });

  it('reads the notification mode, "no" as none', () => {
    expect(readAnswer('notify', 0, 'Email please')).toEqual({ notify_mode: 'email' });
    expect(readAnswer('notify', 0, 'no')).toEqual({ notify_mode: 'none' });
  });

  it('reads the close preferences', () => {
    expect(readAnswer('close', 0, 'no audit, remind me in 2 weeks')).toEqual({
      close_ack: true,
      audit_export: false,
      followup_preference: 'remind_in_14d',
    });
    expect(readAnswer('close', 0, 'ok, no reminder')).toEqual({
      close_ack: true,
      audit_export: true,
      followup_preference: 'none',
    });
  });
});

describe('redaction', () => {
  it('replaces credential references and session proofs everywhere in JSON, keys included', () => {
    expect(redactText('use vault://a/b?c=1 and proof:xyz.')).toBe(
      'use vault://[redacted] and proof:[redacted]',
    );
    expect(redactJson({ 'vault://k': ['proof:1', 2, null, { x: 'VAULT://Z' }] })).toEqual({
      'vault://[redacted]': ['proof:[redacted]', 2, null, { x: 'vault://[redacted]' }],
    });
  });
});
