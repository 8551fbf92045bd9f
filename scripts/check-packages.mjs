// Release checks on every built package (run after `npm run build`):
// - the manifest has what a first publish needs (scripts/release-rules.mjs), and sibling ranges
//   are ^version so that `changeset version` keeps them resolving;
// - publint (package.json and files) and arethetypeswrong (types resolve for ESM, CJS, bundlers);
// - `npm publish --dry-run` succeeds: npm packs and validates the package without uploading it.
//   It needs no credentials, but it does ask the registry whether the version is taken; a version
//   already published is reported and skipped, and its tarball is listed with `npm pack --dry-run`;
// - the tarball holds only dist/, package.json, README.md and LICENSE;
// - every package never released (0.0.0) has a pending changeset that releases it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import getReleasePlan from '@changesets/get-release-plan';
import { listPackages, root } from './packages.mjs';
import {
  isAlreadyPublished,
  manifestProblems,
  releasePlanProblems,
  versionGroupProblems,
  tarballProblems,
} from './release-rules.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: 'pipe', encoding: 'utf8' });
const packages = listPackages();
const versions = new Map(packages.map((p) => [p.name, p.manifest.version]));
let failed = 0;
const fail = (pkg, label, detail) => {
  failed++;
  console.error(`✗ ${pkg}: ${label}${detail ? `\n${detail}` : ''}`);
};

/** Runs npm publish --dry-run; returns the tarball's paths and what happened. */
function publishDryRun(pkg) {
  const args = ['--dry-run', '--json', '--ignore-scripts'];
  try {
    const out = JSON.parse(run('npm', ['publish', ...args], pkg.dir));
    const result = out[pkg.name] ?? out;
    return { paths: result.files.map((f) => f.path), note: `would publish ${result.id}` };
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    if (!isAlreadyPublished(output))
      throw Object.assign(new Error('npm publish --dry-run failed'), { output });
    const [packed] = JSON.parse(run('npm', ['pack', ...args], pkg.dir));
    return {
      paths: packed.files.map((f) => f.path),
      note: `${packed.id} is already on the registry: skipped`,
    };
  }
}

for (const pkg of packages) {
  if (!existsSync(join(pkg.dir, 'dist', 'index.js'))) {
    fail(pkg.name, 'not built (run npm run build)');
    continue;
  }
  const manifest = manifestProblems(pkg, versions);
  if (manifest.length > 0) fail(pkg.name, 'package.json', manifest.map((p) => `  ${p}`).join('\n'));
  else console.log(`✓ ${pkg.name}: package.json`);

  for (const [label, cmd, args] of [
    ['publint', bin('publint'), ['--strict', pkg.dir]],
    ['attw', bin('attw'), ['--pack', pkg.dir, '--format', 'table-flipped']],
  ]) {
    try {
      run(cmd, args, root);
      console.log(`✓ ${pkg.name}: ${label}`);
    } catch (error) {
      fail(pkg.name, label, `${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  }

  try {
    const { paths, note } = publishDryRun(pkg);
    console.log(`✓ ${pkg.name}: npm publish --dry-run (${note})`);
    const contents = tarballProblems(paths);
    if (contents.length > 0) fail(pkg.name, 'tarball', contents.map((p) => `  ${p}`).join('\n'));
    else
      console.log(
        `✓ ${pkg.name}: tarball holds dist/, package.json, README.md, LICENSE (${paths.length} files)`,
      );
  } catch (error) {
    fail(pkg.name, 'npm publish --dry-run', error.output ?? String(error));
  }
}

const changesetConfig = JSON.parse(readFileSync(join(root, '.changeset', 'config.json'), 'utf8'));
for (const problem of versionGroupProblems(packages, changesetConfig)) fail('version groups', problem);

const plan = await getReleasePlan(root);
const unreleased = releasePlanProblems(packages, plan);
for (const problem of unreleased) fail('release plan', problem);
if (unreleased.length === 0) {
  const next = plan.releases.filter((r) => versions.has(r.name) && r.type !== 'none');
  console.log(
    `✓ release plan: ${next.map((r) => `${r.name} ${r.oldVersion} → ${r.newVersion}`).join(', ') || 'nothing pending'}`,
  );
}

if (failed > 0) {
  console.error(`${failed} package check(s) failed`);
  process.exit(1);
}
