// The durable kernel's conformance suite (@parley/testing kernelConformanceCases) mapped onto this host.
//
// The suite's subject is a Store (`{ store }`): it drives three kernels through compare-and-set,
// leases, claims and list. Restate is not a Store and the objects take no lease: a request or a
// session is one Virtual Object whose exclusive handlers are its one writer, its state is committed
// with the handler's journal, and a decision is used once through `authorize`. So the kernel's walks
// cannot be handed a Restate subject; each of its promises is checked here instead as the same kind
// of seeded walk (three callers racing through the ingress) against the objects, on a real server.
// The mapping is keyed by the suite's case names: a case added to the suite fails this file until
// it is mapped.
import type { AuthorizeResult, ConfirmDecision } from '@parley/confirm';
import type { ReceiveResult } from '@parley/correlate';
import { kernelConformanceCases } from '@parley/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CancelResult, OpenResult, RequestConfirmationResult, RequestRecord } from '../src/index.js';
import { confirmations, toolService } from './confirm-services.js';
import { call, send, serveEndpoint } from './endpoint.js';
import { http } from './http.js';
import { type RestateServer, startRestate, waitFor } from './server.js';
import { leadService, openShutdown, requests, responseTo } from './services.js';
import { broken, idle, round, seeded } from './walk.js';

let server: RestateServer;
let closeEndpoint: (() => Promise<void>) | undefined;
beforeAll(async () => {
  server = await startRestate();
  const endpoint = await serveEndpoint([requests, leadService(), confirmations, toolService()]);
  closeEndpoint = () => endpoint.close();
  await server.register(endpoint.url);
});
afterAll(async () => {
  await closeEndpoint?.();
  await server?.stop();
});

const SEEDS = [1, 7];

/** Asks alice to confirm deploying to prod as confirmation `c` of the session; the walk stops if the object refuses it. */
async function asked(sessionKey: string): Promise<void> {
  const request = {
    sessionKey,
    action: { name: 'deploy', args: { env: 'prod' } },
    summary: 'Deploy',
    requester: 'alice',
  };
  const answer = await call<RequestConfirmationResult>(
    server.ingressUrl,
    `confirmations/${sessionKey}/request`,
    { id: 'c', request },
  );
  if (!answer.ok) broken(`the request in ${sessionKey} was refused: ${answer.code}`);
}
const STEPS = 24;
const SETTLED = new Set(['approved', 'rejected', 'cancelled', 'expired']);

const get = (id: string): Promise<RequestRecord | null> => call(server.ingressUrl, `requests/${id}/get`);
const open = (id: string, timeoutMs: number): Promise<OpenResult> =>
  openShutdown(server.ingressUrl, id, timeoutMs);

/** Loses no acknowledged commit; a holder whose view is stale (the request was settled since) writes nothing; nothing lands past the deadline. */
async function commitsWalk(seed: number): Promise<void> {
  const rand = seeded(seed);
  const ids: string[] = [];
  const settledAs = new Map<string, string>(); // the settlement the walk saw acknowledged
  const restartAt = 4 + rand(STEPS - 8);
  const check = async (id: string): Promise<void> => {
    const record = await get(id);
    if (record === null) broken(`the acknowledged open of ${id} was lost`);
    const acked = settledAs.get(id);
    if (acked !== undefined && record.state !== acked)
      broken(`${id} was acknowledged ${acked} and now reads ${record.state}`);
  };
  const op = async (_p: number, step: string): Promise<void> => {
    if (ids.length === 0 || rand(4) === 0) {
      const id = `kc-commit-${seed}-${step}`;
      const opened = await open(id, rand(4) === 0 ? 300 : 60_000);
      if (!opened.ok) broken(`open ${id} was refused: ${opened.code}`);
      ids.push(id);
      return;
    }
    const id = ids[rand(ids.length)] as string;
    const stale = settledAs.has(id); // this caller acts on a view the walk knows is out of date
    const answer: ReceiveResult | CancelResult =
      rand(3) === 0
        ? await call<CancelResult>(server.ingressUrl, `requests/${id}/cancel`, { by: 'lead' })
        : await call<ReceiveResult>(
            server.ingressUrl,
            `requests/${id}/reply`,
            responseTo(id, {
              response: rand(2) === 0 ? { approve: true } : { approve: false, reason: 'no' },
            }),
          );
    if (!answer.ok) return;
    if (stale) broken(`a write on the settled ${id} landed`);
    const record = 'record' in answer ? answer.record : await get(id);
    if (record === null || !SETTLED.has(record.state)) broken(`${id} answered ok without settling`);
    if (settledAs.has(id)) broken(`${id} was settled twice (${settledAs.get(id)}, then ${record.state})`);
    if ((record.settledAt ?? Number.POSITIVE_INFINITY) >= record.deadlineAt)
      broken(`${id} was settled ${record.state} at or past its deadline`);
    settledAs.set(id, record.state);
  };
  for (let step = 0; step < STEPS; step++) {
    await round(rand, step, op);
    if (step === restartAt) await server.restart(); // a crash of the engine: every acknowledged commit survives it
    for (const id of ids.slice(-3)) await check(id);
  }
  let dueBy = 0;
  for (const id of ids) {
    await check(id);
    const record = await get(id);
    if (record !== null && record.deadlineAt - record.createdAt < 60_000)
      dueBy = Math.max(dueBy, record.deadlineAt);
  }
  await idle(server.adminUrl, dueBy);
}

/** A decision authorizes its action once: racing authorizations, the wrong action, an unconfirmed decision. */
async function effectsWalk(seed: number): Promise<void> {
  const rand = seeded(seed);
  const used = new Map<string, number>(); // confirmation → times authorized
  const outcomes = new Map<string, string>();
  const ask = async (step: string): Promise<string> => {
    const sessionKey = `chat:kc-effect-${seed}-${step}`;
    await asked(sessionKey);
    const choice = rand(3) === 0 ? 'cancel' : 'confirm';
    await call(server.ingressUrl, `confirmations/${sessionKey}/click`, {
      id: 'c',
      choice,
      senderId: 'alice',
    });
    outcomes.set(sessionKey, choice === 'confirm' ? 'confirmed' : 'cancelled');
    return sessionKey;
  };
  const op = async (_p: number, step: string): Promise<void> => {
    const keys = [...outcomes.keys()];
    if (keys.length === 0 || rand(5) === 0) {
      await ask(step);
      return;
    }
    const sessionKey = keys[rand(keys.length)] as string;
    const env = rand(4) === 0 ? 'staging' : 'prod';
    const answer = await call<AuthorizeResult>(server.ingressUrl, 'tool/use', {
      sessionKey,
      id: 'c',
      requester: 'alice',
      env,
    });
    if (outcomes.get(sessionKey) !== 'confirmed') {
      if (answer.ok || answer.code !== 'not_confirmed')
        broken(`a cancelled ${sessionKey} answered ${JSON.stringify(answer)}`);
      return;
    }
    if (!answer.ok) {
      const expected = env !== 'prod' ? 'action_mismatch' : 'already_used';
      if (answer.code !== expected) broken(`${sessionKey} (${env}) refused ${answer.code}, not ${expected}`);
      return;
    }
    if (env !== 'prod') broken(`${sessionKey} authorized an action it was not confirmed for`);
    used.set(sessionKey, (used.get(sessionKey) ?? 0) + 1);
    if ((used.get(sessionKey) ?? 0) > 1) broken(`the action of ${sessionKey} was authorized twice`);
  };
  for (let step = 0; step < STEPS; step++) await round(rand, step, op);
  for (const [sessionKey, outcome] of outcomes) {
    if (outcome !== 'confirmed') continue;
    const again = await call<AuthorizeResult>(server.ingressUrl, 'tool/use', {
      sessionKey,
      id: 'c',
      requester: 'alice',
      env: 'prod',
    });
    const before = used.get(sessionKey) ?? 0;
    if (again.ok ? before !== 0 : again.code !== 'already_used' || before !== 1)
      broken(`${sessionKey}: ${before} authorization(s), then ${JSON.stringify(again)}`);
  }
}

/** A wait given back (its invocation cancelled) holds nothing: the other waiters get the decision, the action is authorized once. */
async function givenBackWalk(seed: number): Promise<void> {
  const rand = seeded(seed);
  for (let r = 0; r < 3; r++) {
    const sessionKey = `chat:kc-back-${seed}-${r}`;
    await asked(sessionKey);
    const waits = await Promise.all(
      [0, 1, 2].map(() => send(server.ingressUrl, 'tool/wait', { sessionKey, id: 'c' })),
    );
    await waitFor(`three waiters on ${sessionKey}`, 20_000, async () => {
      const state = (await server.state('confirmations', sessionKey, 'session')) as
        | { watchers: Record<string, string[]> }
        | undefined;
      return (state?.watchers.c ?? []).length === 3;
    });
    const given = waits.filter(() => rand(2) === 0);
    for (const invocation of given) {
      const cancelled = await http('PATCH', `${server.adminUrl}/invocations/${invocation}/cancel`);
      if (cancelled.status >= 300)
        broken(`cancel ${invocation} answered ${cancelled.status}: ${cancelled.text}`);
    }
    await call(server.ingressUrl, `confirmations/${sessionKey}/click`, {
      id: 'c',
      choice: 'confirm',
      senderId: 'alice',
    });
    for (const invocation of waits) {
      const out = await http('GET', `${server.ingressUrl}/restate/invocation/${invocation}/attach`);
      if (given.includes(invocation)) {
        if (out.status < 300) broken(`the cancelled wait ${invocation} still returned a decision`);
        continue;
      }
      const decision = JSON.parse(out.text) as ConfirmDecision;
      if (decision.outcome !== 'confirmed') broken(`a remaining waiter got ${out.status} ${out.text}`);
    }
    const uses = await Promise.all(
      [0, 1].map(() =>
        call<AuthorizeResult>(server.ingressUrl, 'tool/use', {
          sessionKey,
          id: 'c',
          requester: 'alice',
          env: 'prod',
        }),
      ),
    );
    if (uses.filter((u) => u.ok).length !== 1)
      broken(`${sessionKey} was authorized ${uses.filter((u) => u.ok).length} times`);
  }
}

/** Listing (the admin SQL `state` table) finds exactly the requests a `get` finds, with every acknowledged commit. */
async function listWalk(seed: number): Promise<void> {
  const rand = seeded(seed);
  const prefix = `kc-list-${seed}-`;
  const opened = new Set<string>();
  const op = async (_p: number, step: string): Promise<void> => {
    const ids = [...opened];
    if (ids.length === 0 || rand(2) === 0) {
      const id = `${prefix}${step}`;
      if ((await open(id, 60_000)).ok) opened.add(id);
      return;
    }
    const id = ids[rand(ids.length)] as string;
    await call(server.ingressUrl, `requests/${id}/reply`, responseTo(id));
  };
  for (let step = 0; step < STEPS / 2; step++) {
    await round(rand, step, op);
    const query = `SELECT service_key, value_utf8 FROM state WHERE service_name = 'requests' AND key = 'request' AND service_key LIKE '${prefix}%'`;
    const answer = await http('POST', `${server.adminUrl}/query`, { query }, { accept: 'application/json' });
    const rows = (JSON.parse(answer.text) as { rows: { service_key: string; value_utf8: string }[] }).rows;
    const listed = new Map(rows.map((row) => [row.service_key, JSON.parse(row.value_utf8) as RequestRecord]));
    for (const id of opened) if (!listed.has(id)) broken(`the acknowledged ${id} is not listed`);
    for (const [id, record] of listed) {
      if (!opened.has(id)) broken(`${id} is listed but was never acknowledged`);
      const read = await get(id);
      if (read?.state !== record.state) broken(`${id} lists ${record.state} but reads ${read?.state}`);
    }
  }
}

const MAPPED: Record<string, { readonly as: string; readonly walk: (seed: number) => Promise<void> }> = {
  'loses no acknowledged commit, takes no valid lease, and fences every stale holder': {
    as: 'requests: racing replies and cancels, a server restart mid-walk; one settlement per request, none on a stale view, none past the deadline, every acknowledged one kept',
    walk: commitsWalk,
  },
  'runs no claimed effect twice and never re-runs an unknown outcome': {
    as: 'confirmations: racing authorizations of a decision succeed once, never for another action or an unconfirmed decision',
    walk: effectsWalk,
  },
  'hands a claim given back to the next claimer, never runs an effect twice, and fences the claim given back':
    {
      as: 'confirmations: waits cancelled mid-wait hold nothing; the remaining waiters get the decision, the cancelled ones never do, the action is authorized once',
      walk: givenBackWalk,
    },
  'lists under a prefix exactly what a read of each key finds, with every acknowledged commit, reporting what the codec refuses':
    {
      as: 'requests: the state table lists exactly the acknowledged requests under a prefix, each as its get reads it',
      walk: listWalk,
    },
};

describe('the kernel conformance suite, mapped onto the Restate host', () => {
  it('maps every case of the suite', () => {
    expect(
      kernelConformanceCases()
        .map((c) => c.name)
        .sort(),
    ).toEqual(Object.keys(MAPPED).sort());
  });

  for (const check of kernelConformanceCases()) {
    const mapped = MAPPED[check.name];
    it.skipIf(mapped === undefined)(`${check.name} — as ${mapped?.as}`, async () => {
      for (const seed of SEEDS) await mapped?.walk(seed);
      await idle(server.adminUrl, Date.now()); // nothing of the walk still running into the next test
    });
  }
});
