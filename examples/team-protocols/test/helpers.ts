import { createSequentialIds } from '@parley/core';
import { createFakeClock, createTranscript, type FakeClock, type Transcript } from '@parley/testing';
import type { TeammateScript } from '../src/cast.js';
import { START_AT } from '../src/run.js';
import { createTeam, type Team } from '../src/team.js';

export interface Setup {
  readonly clock: FakeClock;
  readonly transcript: Transcript;
  readonly team: Team;
}

/** A team on a fake clock at 09:00:00 with ids req_1, req_2…; the default cast unless one is given. */
export function setup(cast?: readonly TeammateScript[], spawned: 'all' | 'none' = 'all'): Setup {
  const clock = createFakeClock({ now: START_AT });
  const transcript = createTranscript({ clock });
  const team = createTeam({
    clock,
    generateId: createSequentialIds('req_'),
    transcript,
    spawned,
    ...(cast === undefined ? {} : { cast }),
  });
  return { clock, transcript, team };
}

/** Every message the hub carried, in order, as `from→to kind request_id`. */
export function traffic(team: Team): string[] {
  return team.hub.records.map((r) => `${r.from}→${r.to} ${r.message.kind} ${r.message.request_id}`);
}
