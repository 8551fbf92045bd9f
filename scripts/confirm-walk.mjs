// Measures the walk of one confirmation through the confirm gate's source (issue 30): which
// files its handling enters, in order, from `gate.request(...)` through the prompt's delivery,
// the person's reply and the decision to `gate.authorize(...)`, and how often it returns to a
// file it had left. Every function of a copy of packages/protocols/confirm/src is made to report its file;
// the copy runs one scenario on the fake clock and the memory store.
//
//   node scripts/confirm-walk.mjs            prints the counts and the walk
//   node scripts/confirm-walk.mjs --json     prints them as JSON
//   node scripts/confirm-walk.mjs --at REV   measures the source as it was at a git revision
//   node scripts/confirm-walk.mjs --json --functions   the walk function by function
//
// "Mechanism" files are the ones that hold or change a confirmation; the rest are pure helpers it
// calls with plain values (parsing words, rendering text, hashing, signing tokens, codecs).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
/** `--functions`: the walk names each function entered (file#name). */
const functions = process.argv.includes('--functions');
const source = join(root, 'packages/protocols/confirm/src');
// Inside the repository, so the copy resolves @parley/* and its dependencies as the package does.
const work = join(root, 'node_modules/.cache/confirm-walk');

/** The pure step: its entry (machine.ts), its data, and the rule files only it (and the store steps) call. */
const STEP = new Set([
  'internal/machine.ts',
  'internal/confirmation.ts',
  'internal/step.ts',
  'internal/step-admit.ts',
  'internal/step-decided.ts',
  'internal/step-store.ts',
]);
/** Files that are pure helpers called with plain values, never with a confirmation. */
const HELPERS = new Set([
  'digest.ts',
  'vocabulary.ts',
  'errors.ts',
  'internal/checks.ts',
  'internal/recent.ts',
  'internal/records.ts',
  'internal/render.ts',
  'internal/sha256.ts',
  'internal/token.ts',
]);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The source with a report of its file at the start of every function body. */
function instrument(text, name) {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body !== undefined) {
      const fn = node.name?.getText() ?? node.parent?.name?.getText?.() ?? 'λ';
      const label = functions ? `${name}#${fn}` : name;
      const report = `globalThis.__walk?.(${JSON.stringify(label)});`;
      if (ts.isBlock(node.body)) edits.push([node.body.getStart() + 1, report]);
      else edits.push([node.body.getStart(), `(${report.slice(0, -1)}, `], [node.body.getEnd(), ')']);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  edits.sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [at, insert] of edits) out = out.slice(0, at) + insert + out.slice(at);
  return out;
}

const SCENARIO = `
import { createMessageBus } from '@parley/bus';
import { createManualClock } from '@parley/core';
import { createConfirmGate } from './src/index.ts';

const walk = [];
const marks = {};
const clock = createManualClock({ now: 1_000 });
const bus = createMessageBus({ clock });
const gate = createConfirmGate({ bus, clock });
await gate.ready;
const action = { name: 'sql.drop', args: { table: 'customers' } };
const delivered = new Promise((resolve) => gate.on('prompted', resolve));
globalThis.__walk = (file) => { if (walk.at(-1) !== file) walk.push(file); };
const pending = gate.request({ sessionKey: 'telegram:1', action, summary: 'DROP TABLE customers', requester: 'alice' });
await delivered;
await bus.receiveOutbound();
marks.reply = walk.length;
await bus.publishInbound({ channel: 'telegram', chatId: '1', senderId: 'alice', text: '确认' });
const decision = await pending;
marks.authorize = walk.length;
const allowed = await gate.authorize(decision, action);
globalThis.__walk = undefined;
if (decision.outcome !== 'confirmed' || !allowed.ok) throw new Error('the scenario did not confirm');
console.log(JSON.stringify({ walk, marks }));
`;

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const at = process.argv.indexOf('--at');
if (at === -1) cpSync(source, join(work, 'src'), { recursive: true });
else {
  const tar = spawnSync('git', ['archive', process.argv[at + 1], 'packages/protocols/confirm/src'], {
    cwd: root,
  });
  if (tar.status !== 0) throw new Error(`git archive failed: ${tar.stderr}`);
  spawnSync('tar', ['-x', '--strip-components=2', '-C', work], { input: tar.stdout });
}
for (const path of files(join(work, 'src'))) {
  const name = relative(join(work, 'src'), path);
  writeFileSync(path, instrument(readFileSync(path, 'utf8'), name));
}
writeFileSync(join(work, 'scenario.mts'), SCENARIO);
const tsx = join(root, 'node_modules/.bin/tsx');
const run = spawnSync(tsx, ['scenario.mts'], { cwd: work, encoding: 'utf8' });
rmSync(work, { recursive: true, force: true });
if (run.status !== 0) {
  process.stderr.write(run.stderr);
  process.exit(1);
}
const { walk, marks } = JSON.parse(run.stdout.trim().split('\n').at(-1));

/** Distinct files entered, and how often the walk comes back to a file it had left. */
function count(steps) {
  const seen = new Set();
  let returns = 0;
  for (const [i, file] of steps.entries()) {
    if (i > 0 && steps[i - 1] === file) continue;
    if (seen.has(file)) returns++;
    seen.add(file);
  }
  return { files: seen.size, returns, list: [...seen] };
}
const collapse = (steps) => steps.filter((file, i) => i === 0 || steps[i - 1] !== file);
const parts = {
  'request → decision → authorize': walk,
  'the reply → decision': walk.slice(marks.reply, marks.authorize),
};
const report = Object.fromEntries(
  Object.entries(parts).map(([name, steps]) => [
    name,
    {
      all: count(steps),
      mechanism: count(collapse(steps.filter((file) => !HELPERS.has(file)))),
      // The step's files as one part: what is left are the files with state or effects.
      stateful: count(
        collapse(steps.filter((file) => !HELPERS.has(file)).map((f) => (STEP.has(f) ? 'the step' : f))),
      ),
    },
  ]),
);
if (process.argv.includes('--json')) console.log(JSON.stringify({ report, walk, marks }, null, 2));
else {
  for (const [name, { all, mechanism, stateful }] of Object.entries(report)) {
    console.log(`${name}`);
    console.log(`  every file: ${all.files} files entered, ${all.returns} returns to a file left before`);
    console.log(`    ${all.list.join(', ')}`);
    console.log(`  without pure helpers: ${mechanism.files} files entered, ${mechanism.returns} returns`);
    console.log(`    ${mechanism.list.join(', ')}`);
    console.log(`  the step's pure files as one part: ${stateful.files} parts entered`);
    console.log(`    ${stateful.list.join(', ')}`);
  }
}
