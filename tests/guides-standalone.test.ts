// Each guide the way a reader uses it: a fresh project outside the repository, only the guide's
// own `npm install` lines (the @parley packages from their packed tarballs, as npm would serve
// them), and the code samples as the guide shows them, typed into the files it names. The code
// must type-check with the project's TypeScript, and getting-started's program must print the
// transcript the guide shows. `npm test` builds the packages before this runs.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { listPackages } from '../scripts/packages.mjs';
import { converse, type Platform, WIRING_TRANSCRIPTS } from './guides-wiring.js';

interface Pkg {
  name: string;
  short: string;
  dir: string;
}

const GUIDES = join(import.meta.dirname, '..', 'guides');
const packages = listPackages() as Pkg[];
const built = packages.every((p) => existsSync(join(p.dir, 'dist', 'index.js')));
const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The project's own `tsc -p .` output: empty when the code compiles, the diagnostics otherwise. */
function typecheck(dir: string): string {
  try {
    return run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', '.'], dir);
  } catch (error) {
    return String((error as { stdout?: unknown }).stdout);
  }
}

/** A guide's shell lines, and its code samples in order, as a reader copies them. */
function readGuide(name: string): { installs: string[][]; samples: string[]; output: string | undefined } {
  const text = readFileSync(join(GUIDES, name), 'utf8');
  const installs = [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => (m[1] ?? '').split('\n'))
    .filter((line) => line.startsWith('npm install '))
    .map((line) => line.split(/\s+/).slice(2));
  const samples = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const output = /```text\n([\s\S]*?)```/.exec(text)?.[1];
  return { installs, samples, output };
}

/** The tsconfig.json getting-started shows. */
const TSCONFIG =
  /```json\n([\s\S]*?)```/.exec(readFileSync(join(GUIDES, 'getting-started.md'), 'utf8'))?.[1] ?? '';

let root = '';
let tarballs = new Map<string, string>();

/** A fresh project with what the guide's install lines install, @parley packages from tarballs. */
function project(name: string, installs: string[][]): string {
  const dir = join(root, name);
  mkdirSync(dir);
  // The packages the installed ones depend on come from their tarballs too, as npm would serve them
  // (npm refuses an override of a package that is also installed directly).
  const direct = new Set(installs.flat());
  const overrides = Object.fromEntries(
    [...tarballs].filter(([pkg]) => !direct.has(pkg)).map(([pkg, file]) => [pkg, `file:${file}`]),
  );
  const manifest = { name, version: '1.0.0', private: true, type: 'module', overrides }; // an ESM project, as the guide says
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'tsconfig.json'), TSCONFIG); // the one getting-started shows
  for (const args of installs) {
    const local = args.map((a) => tarballs.get(a) ?? a);
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', ...local], dir);
  }
  return dir;
}

beforeAll(() => {
  if (!built) return;
  root = mkdtempSync(join(tmpdir(), 'parley-guides-'));
  const packed = join(root, 'tarballs');
  mkdirSync(packed);
  for (const pkg of packages) run('npm', ['pack', '--silent', '--pack-destination', packed], pkg.dir);
  const files = readdirSync(packed);
  tarballs = new Map(
    packages.map((p) => [p.name, join(packed, files.find((f) => f.startsWith(`parley-${p.short}-`)) ?? '')]),
  );
}, 300_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.runIf(built)('guides typed into a fresh project', () => {
  it('getting started: the shown code compiles with only its install lines and prints the shown transcript', () => {
    const guide = readGuide('getting-started.md');
    const dir = project('getting-started', guide.installs);
    writeFileSync(join(dir, 'bot.ts'), guide.samples.join('\n'));
    expect(typecheck(dir)).toBe('');
    const printed = run(join(dir, 'node_modules', '.bin', 'tsx'), ['bot.ts'], dir);
    expect(printed).toBe(guide.output);
  }, 300_000);

  describe('wiring an existing bot', () => {
    let dir = '';
    const files: Record<Platform, string> = {
      telegram: 'telegram.ts',
      slack: 'slack.ts',
      feishu: 'feishu.ts',
    };

    it('the grammY, Bolt and Feishu programs compile next to the getting-started bot', () => {
      const start = readGuide('getting-started.md');
      const guide = readGuide('wiring-an-existing-bot.md');
      dir = project('wiring', guide.installs);
      writeFileSync(join(dir, 'getting-started.ts'), start.samples.join('\n'));
      const names = Object.values(files); // the files the guide names, in its order
      expect(guide.samples).toHaveLength(names.length);
      for (const [i, file] of names.entries()) writeFileSync(join(dir, file), guide.samples[i] ?? '');
      expect(typecheck(dir)).toBe('');
    }, 300_000);

    // Each program as the guide shows it, run as `npx tsx <file>` runs it, its platform on a loopback stand-in.
    it.each(['telegram', 'slack', 'feishu'] as const)(
      '%s: the program confirms once, refuses another member and hands the rest to its own handlers',
      async (platform) => {
        expect(dir).not.toBe(''); // the project above was made
        const program = {
          command: join(dir, 'node_modules', '.bin', 'tsx'),
          args: [files[platform]],
          cwd: dir,
        };
        expect(await converse(platform, program)).toEqual(WIRING_TRANSCRIPTS[platform]);
      },
      120_000,
    );
  });
});
