// Runs reference examples: `npm run example <name> [-- --interactive | --verbose]`, or all of them
// as a guided tour with `npm run demo [-- --verbose]`: each part says what to watch for, runs the
// example's most telling scenarios on simulated time (`--tour`; with --verbose every scenario and
// every dump), and the tour ends with where to go next. Each
// example is a workspace package in examples/<name> with a `start` script. Only the packages an
// example uses are built, and only when their build is older than their sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, 'examples');

/**
 * The tour, in reading order: each example with what a reader should watch for in it, and whether
 * its `--tour` run leaves scenarios out.
 */
export const TOUR = [
  {
    name: 'channel-confirm',
    shortened: true,
    watch:
      'An agent whose SQL tool runs on a real embedded Postgres. A read runs at once; a DELETE, UPDATE\n' +
      'or CREATE INDEX waits until the person who asked replies 确认 (confirm) or 取消 (cancel). Watch\n' +
      'who may confirm, what a timeout does, and how ambiguous replies are treated (@parley/confirm,\n' +
      '@parley/tools, @parley/bus).',
  },
  {
    name: 'ai-sdk-confirm',
    watch:
      "The same confirmation on the Vercel AI SDK: generateText with the SDK's scripted model proposes\n" +
      'a dropTable that needs approval. Watch the approval request become a question in chat, a 确认\n' +
      'run the tool once, a 确认 after the deadline run nothing, and invalid arguments come back to the\n' +
      'model as tool_feedback (@parley/ai-sdk).',
  },
  {
    name: 'cleanup-session',
    shortened: true,
    watch:
      'A strict conversational flow: goal → scope → auth → evidence → three exact YES → export →\n' +
      'execute → notify → close. Watch the flow refuse a vague goal, an expired credential, missing\n' +
      'evidence and a lower-case "yes", and never fill anything in for the user (@parley/fsm).',
  },
  {
    name: 'quant-pipeline',
    shortened: true,
    watch:
      'Agents in a DAG started by a cron trigger, exchanging validated envelopes: parallel bull/bear\n' +
      'briefs, two review gates with revise limits, escalation and a human approval. Watch a report\n' +
      'with missing fields come back as a re-spawn naming them, the CEO ask the secretary with a\n' +
      'blocking send the strategist may not use, and two pipelines side by side (@parley/pipeline, …).',
  },
  {
    name: 'team-protocols',
    watch:
      'A lead and teammates negotiating over request_id: shutdown handshakes and plan approval.\n' +
      'Watch a refusal, an expiry on the clock, and replies from the wrong teammate or too late being\n' +
      'rejected (@parley/correlate; the lead and the model-driven teammates from @parley/protocol-tools).',
  },
  {
    name: 'trpg-gm',
    watch:
      'A game master that cannot cheat: HP, positions and rules are host state; the model only\n' +
      'proposes. Watch a proposal that contradicts the state go back with feedback and be retried,\n' +
      'and a rollback to a checkpoint (@parley/tools, @parley/conflict, @parley/settings).',
  },
];

/** What the tour prints last: where the code and the guides are. */
export const NEXT_STEPS = `━━ Where to go next

  Read the code of what you just saw   examples/<name>/src/main.ts (each example has a README)
  Play a part yourself                 npm run example channel-confirm -- --interactive
                                       (you are alice in the group chat; also cleanup-session,
                                       quant-pipeline, team-protocols and trpg-gm)
  See every detail of a run            npm run demo -- --verbose
  Start your own project               guides/getting-started.md
  Test your bot with Parley's fakes    guides/testing-with-fakes.md
  Add Parley to a bot you already run  guides/wiring-an-existing-bot.md
  Pick the packages you need           guides/choosing-packages.md
  The API of every package             npm run docs, then open docs/index.html`;

const available = existsSync(dir)
  ? readdirSync(dir)
      .filter((name) => existsSync(join(dir, name, 'package.json')))
      .sort()
  : [];

/** Flags of an example that take a value (`--engine restate`, `--platform discord`). */
const VALUED = new Set(['--engine', '--platform', '--scenario']);

function main(args) {
  const tour = args.includes('--all');
  const names = tour
    ? [
        ...TOUR.map((part) => part.name).filter((n) => available.includes(n)),
        ...available.filter((n) => !TOUR.some((p) => p.name === n)),
      ]
    : args.filter((a, i) => !a.startsWith('--') && !VALUED.has(args[i - 1])).slice(0, 1);
  // Everything but the example's name goes to the example, flags' values too (`--engine restate`).
  const named = tour ? -1 : args.findIndex((a, i) => !a.startsWith('--') && !VALUED.has(args[i - 1]));
  const passThrough = args.filter((a, i) => i !== named && a !== '--all');

  if (names.length === 0) {
    console.log(
      available.length === 0
        ? 'No reference examples yet.'
        : `Usage: npm run example <name> [-- --interactive | --verbose]\nExamples: ${available.join(', ')}`,
    );
    process.exit(available.length === 0 || tour ? 0 : 1);
  }
  const unknown = names.find((name) => !available.includes(name));
  if (unknown !== undefined) {
    console.error(`Unknown example "${unknown}". Examples: ${available.join(', ')}`);
    process.exit(1);
  }

  // Build only the packages the chosen examples use (and what those need), and only what is stale.
  const needed = new Set();
  for (const name of names) {
    const deps = JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')).dependencies ?? {};
    for (const dep of Object.keys(deps)) if (dep.startsWith('@parley/')) needed.add(dep);
  }
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), ...needed], { stdio: 'inherit' });

  if (tour) {
    console.log(
      `\nA tour of Parley in ${names.length} reference examples. Each runs its scripted scenarios on simulated time;\n` +
        'a model is scripted, the host decides. Read top to bottom.',
    );
  }
  names.forEach((name, i) => {
    const manifest = JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8'));
    const part = TOUR.find((p) => p.name === name);
    if (tour) {
      console.log(`\n━━ Part ${i + 1} of ${names.length}: ${name}\n`);
      console.log(part?.watch ?? manifest.description ?? '');
      console.log(`(code: examples/${name}/src/main.ts)\n`);
    } else {
      console.log(`\n━━ ${name}: ${manifest.description ?? ''}\n`);
    }
    // The tour shows each example's most telling scenarios; --verbose shows all of them in full.
    const short = tour && !passThrough.includes('--verbose');
    const exampleArgs = short ? ['--tour', ...passThrough] : passThrough;
    execFileSync('npm', ['run', '--silent', 'start', '--', ...exampleArgs], {
      cwd: join(dir, name),
      stdio: 'inherit',
    });
    if (short && part?.shortened === true)
      console.log(`\n(every scenario of ${name}: npm run example ${name})`);
  });
  if (tour) console.log(`\n${NEXT_STEPS}`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) main(process.argv.slice(2));
