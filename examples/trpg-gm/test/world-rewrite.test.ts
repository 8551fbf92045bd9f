// Spec §7.1, third kind: prose that rewrites a world rule, the map or a character-sheet field is a
// conflict, found by @parley/conflict's field-claim detector with this host's vocabulary
// (src/claims.ts); ordinary prose, and prose that agrees with the state, passes.
import { createManualClock } from '@parley/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { authoritativeFields, worldRewriteDetector } from '../src/claims.js';
import type { AuthoritativeView } from '../src/detectors.js';
import { initialGameState, ULTIMATE_GOAL } from '../src/fixtures.js';
import { type RunResult, runTrpgSession } from '../src/run.js';
import { SCENARIOS } from '../src/scenarios.js';

const view: AuthoritativeView = {
  ...initialGameState(),
  goal: ULTIMATE_GOAL,
  party_character_ids: ['pc_aria', 'pc_bram'],
};
const context = { attempt: 1, applied: [] };
const rewrites = async (text: string): Promise<string[]> =>
  (await worldRewriteDetector.detect({ text }, view, context)).map((conflict) =>
    Object.keys(conflict.expected_state_snippet ?? {}).join(),
  );

describe('world_rewrite: prose that rewrites the authoritative state', () => {
  it.each([
    ['Her class is now paladin.', 'characters.pc_aria.job'],
    ["Bram's race has become elf.", 'characters.pc_bram.race'],
    ['His title is now Lord of the Keep.', 'characters.pc_bram.title'],
    ['A tunnel has always been there, under the keep.', 'map.tunnel'],
    ['There is a tower on the hill.', 'map.tower'],
    ['In Emberfall magic is now common.', 'world.rules.magic'],
    ['The oath is now void.', 'world.rules.lantern_oath'],
    ['艾莉亚的职业变成了圣骑士。', 'characters.pc_aria.job'],
    ['地道一直都在那里。', 'map.tunnel'],
  ])('finds %j', async (text, field) => {
    expect(await rewrites(text)).toEqual([field]);
  });

  it('passes what the map, the sheets and the rules already say', async () => {
    for (const text of [
      'The bridge has always been there, swaying over the gorge.', // the rope bridge is on the map
      'Her class is now ranger, as it always was.',
      "Bram's race is now dwarf, and always will be.",
      'Magic is now scarce, as the elders warned.',
      'The gate has always stood here.',
    ]) {
      expect(await rewrites(text), text).toEqual([]);
    }
  });

  it.each([
    'Her voice is now calm and the night has become cold.',
    'The market is now crowded; a merchant becomes angry.',
    "Aria's cloak is now wet and Bram's beard has become grey with ash.",
    'There is a storm over the hills, and a hawk crosses the sky.',
    'If a tunnel had always been there, the goblins would use it.',
    'Bram wonders whether her class could become paladin one day.',
    'Nobody on this map has ever seen a tunnel.',
    '雨一直下。艾莉亚的心情变成了平静。',
  ])('does not flag ordinary prose: %j', async (text) => {
    expect(await rewrites(text)).toEqual([]);
  });

  it('flags none of the texts the scripted GM shows to players in the other scenarios', async () => {
    const shown = SCENARIOS.filter((scenario) => scenario.name !== 'prose-rewrite').flatMap((scenario) =>
      scenario.steps.flatMap((step) => (step.kind === 'turn' ? step.drafts.map((draft) => draft.text) : [])),
    );
    expect(shown.length).toBeGreaterThan(10);
    for (const text of shown) expect(await rewrites(text), text).toEqual([]);
  });

  it('reads the map of the state it is given: a bridge the map loses is no longer there', async () => {
    const paths = view.map.paths.filter((path) => path.path_id !== 'rope_bridge');
    const fields = authoritativeFields({ ...view, map: { ...view.map, paths } });
    expect(fields.find((field) => field.field === 'map.bridge')?.value).toBe(false);
    expect(authoritativeFields(view).find((field) => field.field === 'map.bridge')?.value).toBe(true);
  });
});

describe('scenario 8: a sheet and the map rewritten in prose', () => {
  let run: RunResult;
  beforeAll(async () => {
    run = await runTrpgSession({ clock: createManualClock({ now: Date.UTC(2026, 0, 14, 19) }) });
  });

  it('retries each rewrite with conflict_debug and shows the players only the clean draft', () => {
    const report = run.scenarios.find((entry) => entry.name === 'prose-rewrite');
    const turn = report?.turns[0];
    if (turn === undefined || !turn.ok) throw new Error('scenario 8 played no turn');
    const found = turn.outcome.attempts.map((attempt) =>
      attempt.conflicts.map((conflict) => `${conflict.detector}:${conflict.evidence}`),
    );
    expect(found).toEqual([
      ['world_rewrite:her class is now paladin'],
      ['world_rewrite:the old tunnel has always been there'],
      [],
    ]);
    expect(turn.outcome.attempts[0]?.conflicts[0]?.expected_state_snippet).toEqual({
      'characters.pc_aria.job': 'ranger',
    });
    expect(turn.log.assistant_output_text).toBe(
      'The shrine stays silent. Aria rises, her bow steady, and the wind smells of rain.',
    );
    expect(report?.state.characters['pc_aria']?.job).toBe('ranger');
    expect(report?.ledger.length).toBe(run.scenarios.at(-2)?.ledger.length);
  });

  it('prints the conflicts in the tour transcript', () => {
    const text = run.transcript.join('\n');
    expect(text).toContain(
      '✗ conflict [world_rewrite] The text rewrites characters.pc_aria.job ("her class is now paladin")',
    );
    expect(text).toContain('✗ conflict [world_rewrite] The text rewrites map.tunnel');
  });
});
