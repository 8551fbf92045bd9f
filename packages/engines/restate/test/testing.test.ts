// @parley/restate/testing: the local server's failures are typed, and it leaves nothing behind.
import { existsSync } from 'node:fs';
import { isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { startRestateServer } from '../src/testing.js';
import { waitFor } from './server.js';

describe('startRestateServer', () => {
  it('fails server_failed, naming what it waited for, when the server is not healthy in time, and removes what it made', async () => {
    const failed = await startRestateServer({ readyWithinMs: 1 }).catch((error: unknown) => error);
    expect(isParleyError(failed, 'server_failed')).toBe(true);
    expect((failed as Error).message).toMatch(/waiting for the Restate server to become healthy/);
  });

  it('fails server_failed when the server exits (a request identity key it cannot read)', async () => {
    const failed = await startRestateServer({ identityPrivateKeyPem: 'not a key' }).catch(
      (error: unknown) => error,
    );
    expect(isParleyError(failed, 'server_failed')).toBe(true);
    expect((failed as Error).message).toMatch(/restate-server exited/);
  });

  it('answers state reads (server_failed while its partitions start), and removes its base dir on stop', async () => {
    const server = await startRestateServer();
    try {
      let read: unknown = 'not read';
      await waitFor('the admin SQL API to answer a state read', 20_000, async () => {
        read = await server.state("it's", 'no-key', 'none').catch((error: unknown) => {
          // Just after start the query engine may not find the partitions yet: a typed failure.
          expect(isParleyError(error, 'server_failed')).toBe(true);
          return 'not read';
        });
        return read !== 'not read';
      });
      expect(read).toBeUndefined(); // quotes are escaped: an odd name is a plain miss, not a broken query
    } finally {
      await server.stop();
    }
    expect(existsSync(server.baseDir)).toBe(false);
  });
});
