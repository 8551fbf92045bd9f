// Prose that rewrites a world rule, the map or a character-sheet field (reference document §7.1),
// found by defineFieldClaimDetector against the fields the host lists; ordinary prose passes.
import { describe, expect, it } from 'vitest';
import { type DetectContext, defineFieldClaimDetector } from '../src/index.js';
import { fields, type World, world } from './helpers.js';

const context: DetectContext = { attempt: 1, applied: [] };

const detector = defineFieldClaimDetector<World>({ fields });
const detect = (text: string) => detector.detect({ text }, world, context);

describe('defineFieldClaimDetector: claims against authoritative fields', () => {
  it.each([
    ['the bridge has always been there', 'map.features.bridge', 'the bridge has always been there'],
    [
      'Beyond the ford, the old stone bridge has always stood.',
      'map.features.bridge',
      'the old stone bridge has always stood',
    ],
    ['There is a bridge across the river.', 'map.features.bridge', 'There is a bridge'],
    ['A bridge spans the gorge.', 'map.features.bridge', 'A bridge spans'],
    ['Her class is now paladin.', 'characters.pc_aria.job', 'Her class is now paladin'],
    ["Aria's race has become elf!", 'characters.pc_aria.race', "Aria's race has become elf"],
    ['In this valley magic is now common.', 'world.rules.magic', 'magic is now common'],
    ['桥一直都在那里。', 'map.features.bridge', '桥一直都在那里'],
    ['守卫说艾莉亚的职业变成了圣骑士。', 'characters.pc_aria.job', '守卫说艾莉亚的职业变成了圣骑士'],
  ])('finds the rewrite in %j', async (text, field, evidence) => {
    const found = await detect(text);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ evidence, expected_state_snippet: { [field]: expect.anything() } });
    expect(found[0]?.mismatch_reason).toContain(`rewrites ${field}`);
  });

  it('says what the field holds and how to retry', async () => {
    const [found] = await detect('Her class is now paladin.');
    expect(found).toEqual({
      expected_state_snippet: { 'characters.pc_aria.job': 'ranger' },
      mismatch_reason:
        'The text rewrites characters.pc_aria.job ("Her class is now paladin"): it claims "paladin", but the authoritative value is "ranger"',
      instructions: expect.stringContaining('do not rewrite them in the narrative'),
      evidence: 'Her class is now paladin',
    });
  });

  it('reports every rewrite of one text, each once', async () => {
    const found = await detect(
      'The bridge has always been there, and her class is now paladin. Magic is now common.',
    );
    expect(found.map((conflict) => Object.keys(conflict.expected_state_snippet ?? {})[0]).sort()).toEqual([
      'characters.pc_aria.job',
      'map.features.bridge',
      'world.rules.magic',
    ]);
  });

  it('reads the fields from the state it is given, at each check', async () => {
    const paladin = { ...world, job: 'paladin', features: { bridge: true } };
    expect(
      await detector.detect(
        { text: 'Her class is now paladin. The bridge has always been there.' },
        paladin,
        context,
      ),
    ).toEqual([]);
  });
});

describe('defineFieldClaimDetector: ordinary prose is no claim', () => {
  it.each([
    'Her voice is now calm, and the night has become cold.',
    'The river has always been there, older than the village.',
    'Her class is now ranger, as it always was.',
    'Magic is now scarce, as the elders said.',
    'The market is now crowded; a merchant becomes angry.',
    "Aria's bow is now strung and her hood has become wet.",
    'There is a storm over the hills.',
    'A hawk crosses the sky.',
    'If the bridge had always stood there, the crossing would be easy.',
    'Bram wonders whether her class could become paladin one day.',
    'She walks to the gate and takes out her map. The sun has always been there.',
    '雨一直下。艾莉亚的心情变成了平静。',
    '',
  ])('passes %j', async (text) => {
    expect(await detect(text)).toEqual([]);
  });

  it('reports a negated clause when the guard is turned off, and not with the default guard', async () => {
    const text = 'If the bridge had always stood there, the crossing would be easy.';
    expect(await detect(text)).toEqual([]);
    const unguarded = defineFieldClaimDetector<World>({ fields, guard: null });
    expect(await unguarded.detect({ text }, world, context)).toHaveLength(1);
  });

  it('finds nothing when the host lists no fields', async () => {
    const none = defineFieldClaimDetector<World>({ fields: () => [] });
    expect(await none.detect({ text: 'Her class is now paladin.' }, world, context)).toEqual([]);
  });
});

describe('defineFieldClaimDetector: options', () => {
  it('takes its own patterns, a stated value, a name and instructions', async () => {
    const oath = defineFieldClaimDetector<World>({
      name: 'sheet_rewrite',
      fields: () => [
        { field: 'characters.pc_aria.oath', subjects: ['aria'], names: ['oath'], value: 'none' },
      ],
      patterns: [{ pattern: /\b(?<subject>\w+) swears the (?<name>oath)\b/i, value: 'sworn' }],
      instructions: 'Sheets change only through the host.',
    });
    const [found] = await oath.detect({ text: 'Aria swears the oath.' }, world, context);
    expect(found).toMatchObject({
      instructions: 'Sheets change only through the host.',
      evidence: 'Aria swears the oath',
    });
    expect(found?.mismatch_reason).toContain('it claims "sworn"');
    expect(oath.name).toBe('sheet_rewrite');
    expect(oath.tools).toEqual([]);
  });

  it('compares with the normalize option', async () => {
    const strict = defineFieldClaimDetector<World>({ fields, normalize: (text) => text.trim() });
    // "Her" is not "her" under a case-sensitive comparison: no field is about "Her".
    expect(await strict.detect({ text: 'Her class is now paladin.' }, world, context)).toEqual([]);
    expect(await strict.detect({ text: 'then her class is now paladin.' }, world, context)).toHaveLength(1);
  });

  it('keeps the first field listed for a subject and name given twice', async () => {
    const twice = defineFieldClaimDetector<World>({
      fields: () => [
        { field: 'a', subjects: ['her'], names: ['class'], value: 'ranger' },
        { field: 'b', subjects: ['her'], names: ['class'], value: 'paladin' },
      ],
    });
    const [found] = await twice.detect({ text: 'Her class is now bard.' }, world, context);
    expect(found?.expected_state_snippet).toEqual({ a: 'ranger' });
  });
});
