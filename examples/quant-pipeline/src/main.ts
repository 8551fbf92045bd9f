// The CLI. By default it runs every scripted scenario and prints the transcripts; with
// `--interactive` you are the chairman in #approvals (the agents stay scripted); `--scenario <name>`
// picks one scenario. Time is simulated, so a run takes well under a second. The scenarios share
// their opening (the same spawns at the same times): after the first it is folded into one line
// unless `--verbose` is given. `--tour` (what `npm run demo` passes) runs the first two scenarios.
// Without `--scenario`, it ends with two pipelines side by side (BTC/USDT and ETH/USDT).
// `--console` (interactive, the default then): @parley/console over the run's store on a free
// loopback port, its URL printed first: the live graph, the approval waiting for you.
import { createInterface } from 'node:readline/promises';
import { type RunningConsole, startConsole } from '@parley/console';
import { createManualClock, createMemoryStore } from '@parley/core';
import { toPipelineMermaid } from '@parley/pipeline';
import type { ChairmanDecision } from './narrate.js';
import { DAILY_QUANT_PIPELINE, parsePipeline } from './pipeline.js';
import { DEMO_START, runQuantPipeline } from './run.js';
import { SCENARIOS } from './scenarios.js';

const args = process.argv.slice(2);
const withConsole = args.includes('--console');
const interactive = args.includes('--interactive') || withConsole; // the console is for a live run
const named = args.indexOf('--scenario');
const only = named === -1 ? undefined : args[named + 1];
// `--platform discord`: #approvals and #errors are Discord channels (on the loopback stand-in of
// @parley/chat-sdk/testing); `--answer text` makes the scripted chairman type 确认 instead of clicking.
const platform = args.includes('--platform') ? args[args.indexOf('--platform') + 1] : undefined;
if (platform !== undefined && platform !== 'discord')
  throw new Error(`Unknown platform "${platform}"; discord`);
const onDiscord = platform === 'discord' ? ({ platform } as const) : {};
const answerBy =
  args.includes('--answer') && args[args.indexOf('--answer') + 1] === 'text' ? 'text' : 'click';

if (args.includes('--mermaid')) {
  const parsed = parsePipeline(DAILY_QUANT_PIPELINE);
  if (parsed.ok) console.log(toPipelineMermaid(parsed.value));
} else if (interactive) {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator](); // buffers lines typed (or piped) before the question
  const chairman = async (plan: string): Promise<ChairmanDecision> => {
    console.log(`\n  You are @董事長 in #approvals. The CEO asks you to approve:\n    ${plan}`);
    for (;;) {
      process.stdout.write('  approve | reject [reason] > ');
      const next = await lines.next();
      if (next.done === true) return { approve: false, reason: 'no answer (input closed)' };
      const [word = '', ...rest] = String(next.value).trim().split(/\s+/);
      const reason = rest.join(' ') || undefined;
      if (/^(approve|yes|y|批准)$/i.test(word))
        return reason === undefined ? { approve: true } : { approve: true, reason };
      if (/^(reject|no|n|駁回)$/i.test(word))
        return { approve: false, reason: reason ?? 'rejected by the chairman' };
      console.log('  Please type "approve" or "reject <reason>".');
    }
  };
  const clock = createManualClock({ now: DEMO_START });
  const store = createMemoryStore({ clock });
  let running: RunningConsole | undefined;
  if (withConsole) {
    const parsed = parsePipeline(DAILY_QUANT_PIPELINE);
    const pipelines = parsed.ok ? [parsed.value] : [];
    running = await startConsole({ store, clock, pipelines, refreshSeconds: 5 });
    console.log(`console: ${running.url} (the run's live graph and the approval waiting for you)`);
  }
  const result = await runQuantPipeline({
    scenario: only ?? 'happy',
    chairman,
    clock,
    store,
    output: (line) => console.log(line),
  });
  rl.close();
  await running?.close();
  console.log(`\nfinal status: ${result.status}`);
} else {
  const verbose = args.includes('--verbose');
  let first: string[] | undefined;
  const chosen = SCENARIOS.filter((s) => only === undefined || s.name === only);
  for (const scenario of args.includes('--tour') && only === undefined ? chosen.slice(0, 2) : chosen) {
    const lines: string[] = [];
    const result = await runQuantPipeline({
      scenario,
      ...onDiscord,
      answerBy,
      output: (line) => lines.push(line),
    });
    // The title line differs per scenario; the lines after it repeat the first scenario's opening.
    let same = 0;
    while (!verbose && first !== undefined && lines[same + 1] === first[same + 1]) same++;
    const [title = '', ...rest] = lines;
    console.log(title);
    if (same > 1)
      console.log(`  … the same ${same} opening lines as the first scenario (--verbose shows them)`);
    for (const line of same > 1 ? rest.slice(same) : rest) console.log(line);
    first ??= lines;
    const steps = Object.entries(result.steps)
      .map(([id, step]) => `${id}:${step.status}`)
      .join(' ');
    console.log(`  steps: ${steps}`);
    for (const { channel, message } of result.discord ?? [])
      console.log(`  discord ${channel}: ${message.content ?? message.embeds?.[0]?.description ?? ''}`);
    console.log('');
  }
  if (only === undefined && platform === undefined) {
    // Two pipelines side by side: one runner, one spawn tree, one run per market.
    const lines: string[] = [];
    const result = await runQuantPipeline({
      scenario: 'happy',
      markets: ['BTC/USDT', 'ETH/USDT'],
      output: (line) => lines.push(line),
    });
    const ends = result.sideBySide.map((run) => `${run.runId} ${run.status}`).join(', ');
    const first = lines
      .filter((l) => /as \w+-intel-1 /.test(l))
      .map((l) => l.split(' as ')[1]?.split(' ')[0]);
    console.log(
      `▶ two pipelines side by side on one runner and one spawn tree: ${first.join(' and ')} spawned together; ${ends} (at most ${result.maxRunning} spawned runs alive at once)`,
    );
    if (verbose) for (const line of lines) console.log(line);
    console.log('');
  }
}
