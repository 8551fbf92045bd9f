// Another commit of this repository, laid out so bench/ab.mjs can run its cases beside this
// checkout's: its files (from `git archive`), this checkout's installed dependencies linked in, its
// own workspace packages built. A tree is kept under the system's temporary folder by commit and
// reused; one whose preparation did not finish is made again.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Written last: a tree without it is half made (the preparation failed or was stopped). */
const READY = '.parley-ab-ready';

/** The full commit id `ref` names in the repository at `repo`; throws naming `ref` when it names none. */
export function resolveCommit(repo, ref) {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    throw new Error(`bench ab: "${ref}" names no commit in ${repo}`);
  }
}

/**
 * Links every entry of `from` (a `node_modules` folder) into `to`, except the workspace's own
 * `@parley` scope: its links are relative (`../../packages/…`), so they are copied as they are
 * and point into the new tree's packages, not this checkout's.
 */
export function linkModules(from, to) {
  if (!existsSync(from)) return;
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry !== '@parley') {
      symlinkSync(join(from, entry), join(to, entry));
      continue;
    }
    mkdirSync(join(to, entry));
    for (const name of readdirSync(join(from, entry))) {
      const link = join(from, entry, name);
      if (!lstatSync(link).isSymbolicLink()) {
        throw new Error(`bench ab: ${link} is not a workspace link (run npm ci first)`);
      }
      symlinkSync(readlinkSync(link), join(to, entry, name));
    }
  }
}

/** The `@parley/*` packages the bench's TypeScript files import (the build adds what they need). */
export function benchImports(benchDir) {
  const names = new Set();
  const files = readdirSync(benchDir, { recursive: true }).filter(
    (f) => f.endsWith('.ts') && !f.split('/').includes('node_modules'),
  );
  for (const file of files) {
    for (const [, name] of readFileSync(join(benchDir, file), 'utf8').matchAll(/from '(@parley\/[\w-]+)'/g)) {
      names.add(name);
    }
  }
  return [...names].sort();
}

/**
 * The tree of commit `sha` (a full id, from {@link resolveCommit}): made under `dir` unless a
 * finished one is there. The packages built are those the tree's bench imports, by the tree's own
 * build script; `log` receives what the build prints.
 */
export function prepareTree(
  repo,
  sha,
  { dir = join(tmpdir(), 'parley-bench-ab', sha), log = 'inherit' } = {},
) {
  if (existsSync(join(dir, READY))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', sha], {
    cwd: repo,
    maxBuffer: 1 << 30,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  linkModules(join(repo, 'node_modules'), join(dir, 'node_modules'));
  linkModules(join(repo, 'bench', 'node_modules'), join(dir, 'bench', 'node_modules'));
  execFileSync(process.execPath, [join(dir, 'scripts', 'build.mjs'), ...benchImports(join(dir, 'bench'))], {
    cwd: dir,
    stdio: ['ignore', log, log],
  });
  writeFileSync(join(dir, READY), `${sha}\n`);
  return dir;
}
