// @parley/chat-sdk as someone who installs it from npm gets it (the way consumer.test.ts tests the
// others): the package and the @parley packages it needs are packed, installed into a fresh project
// outside the workspace with `chat` and the Chat SDK adapters from the registry, and used from ESM,
// from CJS without Node's require(esm) (which Node 20.0–20.18 lack; `chat` is ESM-only), and from
// TypeScript (node16 ESM and CJS, and node10 through typesVersions), the `/testing` entry included.
// `npm test` builds before running this.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../scripts/packages.mjs';

const root = new URL('../..', import.meta.url).pathname;
const PARLEY = ['chat-sdk', 'core', 'bus', 'testing', 'conflict'];
const built = PARLEY.every((name) => existsSync(join(root, packagePath(name), 'dist', 'index.js')));
const THIRD_PARTY = ['chat@4.41.0', '@chat-adapter/discord@4.41.0', '@chat-adapter/state-memory@4.41.0'];
/** Node without require(esm): how Node 20.0–20.18 load a CJS package. */
const CJS = ['--no-experimental-require-module'];
const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let workdir = '';
let project = '';

beforeAll(() => {
  if (!built) return;
  workdir = mkdtempSync(join(tmpdir(), 'parley-chat-sdk-consumer-'));
  const tarballs = join(workdir, 'tarballs');
  mkdirSync(tarballs);
  for (const name of PARLEY)
    run('npm', ['pack', '--silent', '--pack-destination', tarballs], join(root, packagePath(name)));
  project = join(workdir, 'consumer');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
  );
  const files = readdirSync(tarballs).map((file) => join(tarballs, file));
  const flags = ['--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'];
  run('npm', ['install', ...flags, ...files, ...THIRD_PARTY], project);
}, 300_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

describe.skipIf(!built)('@parley/chat-sdk installed from its packed tarball', () => {
  it.each([['@parley/chat-sdk'], ['@parley/chat-sdk/testing']])(
    '%s imports from ESM and CJS (without require(esm)) with the same exports',
    (name) => {
      const keys = (load: string) => `${load}; console.log(JSON.stringify(Object.keys(m).sort()))`;
      const esm = run('node', ['--input-type=module', '-e', keys(`import * as m from '${name}'`)], project);
      const cjs = run('node', [...CJS, '-e', keys(`const m = require('${name}')`)], project);
      expect(JSON.parse(esm).length).toBeGreaterThan(0);
      expect(JSON.parse(cjs)).toEqual(JSON.parse(esm));
    },
  );

  it('runs the README example from ESM: a Chat SDK bot answers ping on the Discord stand-in', () => {
    const script = `
      import { createDiscordAdapter } from '@chat-adapter/discord';
      import { createMemoryState } from '@chat-adapter/state-memory';
      import { createDiscordStandIn } from '@parley/chat-sdk/testing';
      import { Chat, ConsoleLogger } from 'chat';
      const discord = await createDiscordStandIn();
      const logger = new ConsoleLogger('silent');
      const adapter = createDiscordAdapter({ ...discord.adapterConfig, logger });
      const bot = new Chat({ userName: 'shop', adapters: { discord: adapter }, state: createMemoryState(), logger });
      bot.onNewMessage(/^ping$/, async (thread) => void (await thread.post('pong')));
      discord.deliverTo((request) => bot.webhooks.discord(request));
      await discord.message({ id: '300000000000000001', username: 'alice' }, 'ping');
      await discord.waitForSent();
      console.log(JSON.stringify(discord.sent.map((message) => message.content)));
      await bot.shutdown();
      await discord.close();
    `;
    expect(JSON.parse(run('node', ['--input-type=module', '-e', script], project))).toEqual(['pong']);
  });

  it('sends a confirm card from CJS: the bus adapter by require, the ESM-only chat by import()', () => {
    const script = `
      const { createChatSdkAdapter } = require('@parley/chat-sdk');
      const { createDiscordStandIn } = require('@parley/chat-sdk/testing');
      const { createMessageBus } = require('@parley/bus');
      (async () => {
        const { Chat, ConsoleLogger } = await import('chat');
        const { createDiscordAdapter } = await import('@chat-adapter/discord');
        const { createMemoryState } = await import('@chat-adapter/state-memory');
        const discord = await createDiscordStandIn();
        const logger = new ConsoleLogger('silent');
        const adapter = createDiscordAdapter({ ...discord.adapterConfig, logger });
        const bot = new Chat({ userName: 'ops', adapters: { discord: adapter }, state: createMemoryState(), logger });
        await bot.initialize();
        const bus = createMessageBus();
        await bus.attach(createChatSdkAdapter({ bot }));
        const card = { buttons: [{ label: 'OK', value: { confirmation: 'c1.confirm' } }] };
        const result = await bus.publishOutbound({ channel: 'chat-sdk', chatId: discord.chatId, text: 'Deploy?', card });
        const labels = discord.sent[0].components.flatMap((row) => row.components.map((b) => b.label));
        console.log(JSON.stringify([result.status, labels]));
        await bus.close();
        await bot.shutdown();
        await discord.close();
      })();
    `;
    expect(JSON.parse(run('node', [...CJS, '-e', script], project))).toEqual(['sent', ['OK']]);
  });

  it('type-checks both entries from TypeScript: node16 ESM and CJS, and node10 through typesVersions', () => {
    const source = `import { createChatSdkAdapter, type ChatSdkAdapter, placeOfId } from '@parley/chat-sdk';
import { createDiscordStandIn, createTeamsStandIn, type DiscordStandIn, type TeamsSentActivity } from '@parley/chat-sdk/testing';
export const use = async (): Promise<[ChatSdkAdapter | undefined, string, number]> => {
  const discord: DiscordStandIn = await createDiscordStandIn();
  const teams = await createTeamsStandIn();
  const sent: readonly TeamsSentActivity[] = teams.sent;
  return [typeof createChatSdkAdapter === 'function' ? undefined : undefined, discord.url, sent.length + (placeOfId('discord', '1')?.position.length ?? 0)];
};
`;
    writeFileSync(join(project, 'use.mts'), source);
    writeFileSync(join(project, 'use.cts'), source);
    writeFileSync(join(project, 'use-node10.ts'), source);
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const common = [
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--typeRoots',
      join(root, 'node_modules', '@types'),
    ];
    for (const [file, module, resolution] of [
      ['use.mts', 'node16', 'node16'],
      ['use.cts', 'node16', 'node16'],
      ['use-node10.ts', 'commonjs', 'node10'],
    ] as const) {
      const args = [
        tsc,
        ...common,
        '--module',
        module,
        '--moduleResolution',
        resolution,
        '--target',
        'es2022',
        file,
      ];
      expect(() => run('node', args, project), `${file} (${resolution})`).not.toThrow();
    }
  });
});
