// `npm run demo` is the first thing a newcomer runs (README "Try it"): a guided tour read top to
// bottom. It stays short (no JSON dumps, no repeated preambles unless --verbose) and ends with
// where to go next, and every path it points to exists. `npm test` builds before running this.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { NEXT_STEPS, TOUR } from '../scripts/example.mjs';

const root = new URL('..', import.meta.url).pathname;
const run = (cmd: string, args: string[], cwd = root): { stdout: string; status: number | null } =>
  spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 240_000 });

let tour = { stdout: '', status: null as number | null };
beforeAll(() => {
  tour = run(process.execPath, ['scripts/example.mjs', '--all']);
}, 240_000);

describe('npm run demo', () => {
  it('runs every example as a numbered part that says what to watch for', () => {
    expect(tour.status).toBe(0);
    const parts = (TOUR as { name: string }[]).map(
      (part, i) => `━━ Part ${i + 1} of ${TOUR.length}: ${part.name}`,
    );
    for (const heading of parts) expect(tour.stdout).toContain(heading);
  });

  it('is short enough to read top to bottom: no JSON dumps and no repeated pipeline preamble', () => {
    // What the build step prints before the tour (only when packages are stale) is not the tour.
    expect(tour.stdout).toContain('A tour of Parley');
    const lines = tour.stdout.slice(tour.stdout.indexOf('A tour of Parley')).split('\n');
    expect(lines.length).toBeLessThan(600);
    // A pretty-printed JSON line: a lone bracket or brace, or a quoted key.
    expect(lines.filter((line) => /^\s*([{}\]],?$|\[$|"[^"]+": )/.test(line))).toEqual([]);
    expect(lines.filter((line) => line.includes('trigger cron'))).toHaveLength(1);
  });

  it('ends with where to go next, and every file it names exists', () => {
    expect(tour.stdout.trimEnd().endsWith(NEXT_STEPS)).toBe(true);
    const paths = (NEXT_STEPS as string).match(/guides\/[\w-]+\.md/g) ?? [];
    expect(paths.length).toBeGreaterThan(3);
    for (const path of paths) expect(existsSync(join(root, path)), path).toBe(true);
    for (const part of TOUR as { name: string }[]) {
      expect(existsSync(join(root, 'examples', part.name, 'src', 'main.ts'))).toBe(true);
    }
  });

  it('verifies the channel-confirm consent ledger, from request to effect, and catches a tampered copy', () => {
    expect(tour.stdout).toContain(
      "ledger 6 entries verified; a copy with the answer's author changed: edited at line 3",
    );
  });

  it('prints the session JSON dumps only with --verbose', () => {
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    const dir = join(root, 'examples', 'cleanup-session');
    const verbose = run(tsx, ['src/main.ts', '--tour', '--verbose'], dir);
    expect(verbose.stdout).toContain('session JSON of sess_1 (happy-path):\n{');
    expect(tour.stdout).toContain('→ sess_1 (happy-path) ended closed, execution success');
  });
});
