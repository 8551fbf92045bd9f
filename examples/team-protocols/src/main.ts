// The CLI. By default it runs the five scripted scenarios on simulated time, prints the transcript
// and the final `/team` view, then the lead-model run (the lead is a model, given the document's
// try-it prompts), and exits. `--interactive`: you play the lead, spawn teammates by name and type
// commands, or instruct the lead's model with `ask` (`/help`); time is simulated. `--engine restate`:
// the protocols on a real Restate server with two app processes (src/restate/run.ts).
import { createInterface } from 'node:readline/promises';
import { createSequentialIds } from '@parley/core';
import { createFakeClock } from '@parley/testing';
import { createLeadConsole, HELP } from './console.js';
import { CHARLIE, TEAM } from './cast.js';
import { createLeadAgent, scriptedLead } from './lead.js';
import { runLeadModel } from './lead-run.js';
import { runTeamProtocols } from './run.js';
import { createTeam } from './team.js';
import { createTranscript } from '@parley/testing';

async function interactive(): Promise<void> {
  // Simulated time starting now: `wait 30` shows an expiry without waiting 30 real seconds.
  const clock = createFakeClock({ now: Math.floor(Date.now() / 1000) * 1000 });
  const transcript = createTranscript({ clock, output: (line) => console.log(line) });
  // Nobody is on the team until spawned by name (`spawn alice`, or `ask Spawn alice as a coder…`).
  const team = createTeam({
    clock,
    generateId: createSequentialIds('req_'),
    transcript,
    cast: [...TEAM, CHARLIE],
    spawned: 'none',
  });
  // With --lead-model the lead's scripted model also acts (`ask …`) and reviews plans itself.
  const leadModel = process.argv.includes('--lead-model')
    ? createLeadAgent(team, scriptedLead(clock))
    : undefined;
  const lead = createLeadConsole(team, leadModel);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  try {
    console.log(`${HELP}\n`);
    rl.setPrompt(lead.prompt());
    rl.prompt();
    // The async iterator buffers lines, so piped input works as well as typing; it ends on Ctrl-D.
    for await (const line of rl) {
      const out = await lead.handle(line);
      if (out === undefined) break;
      for (const text of out) console.log(text);
      rl.setPrompt(lead.prompt());
      rl.prompt();
    }
  } finally {
    rl.close();
    leadModel?.close();
    team.close();
  }
}

const engine = process.argv[process.argv.indexOf('--engine') + 1];
if (process.argv.includes('--engine') && engine !== 'restate') {
  console.error(`Unknown engine "${engine}"; the one engine switch is --engine restate.`);
  process.exitCode = 1;
} else if (engine === 'restate' && process.argv.includes('--engine')) {
  // The same protocols on a real Restate server from node_modules, with two app processes (src/restate/).
  const { runOnRestate } = await import('./restate/run.js');
  await runOnRestate({ output: (line) => console.log(line) });
} else if (process.argv.includes('--interactive')) {
  await interactive();
} else {
  // The tour (`--tour`, what `npm run demo` passes) shows two of the five scenarios (the second has an expiry too) and leaves the
  // team view to the lead-model run, whose plan reviews stand in for scenario 4.
  const tour = process.argv.includes('--tour');
  const result = await runTeamProtocols({
    output: (line) => console.log(line),
    ...(tour && {
      scenarios: ['shutdown-approved', 'late-and-wrong-replies'] as const,
      showView: false,
    }),
  });
  console.log(`\n${result.lines.length} transcript lines; timers left: ${result.pendingTimers}`);
  console.log("\n━━ 6. lead-model: the lead is a model too; the document's try-it prompts, typed to it");
  const led = await runLeadModel({ output: (line) => console.log(line) });
  console.log(`\n${led.lines.length} transcript lines; timers left: ${led.pendingTimers}`);
  if (result.pendingTimers !== 0 || led.pendingTimers !== 0) process.exitCode = 1;
}
