// biome-ignore-all lint/correctness/noUnusedVariables: examples declare values to show their types
// Every TSDoc @example of @parley/console, compiled and run; a "// value" comment after console.log is asserted.
// Generated from the sources' TSDoc; keep in step with them.
import { createServer } from 'node:http';
import { createMemoryStore, isParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import {
  CONSOLE_ERROR_CODES,
  CONSOLE_REFUSAL_CODES,
  type ConsoleErrorCode,
  type ConsoleHandler,
  type ConsoleOptions,
  type ConsoleRefusalCode,
  type ConsoleRequest,
  type ConsoleResponse,
  createConsole,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_TEXT_LENGTH,
  type RunningConsole,
  type StartConsoleOptions,
  startConsole,
} from '../src/index.js';
import {
  expectEveryPrintedLineChecked,
  expectPrinted,
  log,
  takePrinted,
} from '../../../../tests/support/printed.js';

expectEveryPrintedLineChecked();

describe('@parley/console examples', () => {
  it('CONSOLE_ERROR_CODES (errors.ts)', () => {
    log(CONSOLE_ERROR_CODES);
    expectPrinted("[ 'invalid_argument' ]");
  });

  it('ConsoleErrorCode (errors.ts)', () => {
    const code: ConsoleErrorCode = 'invalid_argument';
  });

  it('CONSOLE_REFUSAL_CODES (errors.ts)', () => {
    log(CONSOLE_REFUSAL_CODES.includes('unauthenticated'));
    expectPrinted('true');
  });

  it('ConsoleRefusalCode (errors.ts)', () => {
    const code: ConsoleRefusalCode = 'not_found';
  });

  it('ConsoleError (errors.ts)', () => {
    try {
      createConsole({ store: createMemoryStore(), pageSize: 0 });
    } catch (err) {
      log(isParleyError(err, 'invalid_argument'));
    }
    expectPrinted('true');
  });

  it('DEFAULT_PAGE_SIZE (options.ts)', () => {
    log(DEFAULT_PAGE_SIZE);
    expectPrinted('50');
  });

  it('MAX_PAGE_SIZE (options.ts)', () => {
    log(MAX_PAGE_SIZE);
    expectPrinted('500');
  });

  it('MAX_TEXT_LENGTH (options.ts)', () => {
    log(MAX_TEXT_LENGTH);
    expectPrinted('500');
  });

  it('ConsoleOptions (options.ts)', () => {
    const options: ConsoleOptions = {
      store: createMemoryStore(),
      authenticate: (req) => req.headers.authorization === 'Bearer operator-token',
      pageSize: 25,
    };
  });

  it('ConsoleHandler (console.ts)', () => {
    const handler: ConsoleHandler = createConsole({ store: createMemoryStore() });
    const server = createServer((req, res) => void handler(req, res));
  });

  it('ConsoleRequest (http.ts)', () => {
    const req: ConsoleRequest = {
      method: 'GET',
      url: '/confirmations?format=json',
      headers: { authorization: 'Bearer t' },
    };
  });

  it('ConsoleResponse (http.ts)', () => {
    const captured: { status?: number; body?: string } = {};
    const res: ConsoleResponse = {
      statusCode: 200,
      setHeader: () => res,
      end(body?: string) {
        captured.status = res.statusCode;
        captured.body = body;
        return res;
      },
    };
  });

  it('createConsole (console.ts)', () => {
    const store = createMemoryStore();
    const handler = createConsole({ store, authenticate: (req) => req.headers['x-operator'] === 'yes' });
    // express: app.use('/console', handler) with basePath: '/console'; node:http: createServer(handler)
    log(typeof handler);
    expectPrinted('function');
  });

  it('StartConsoleOptions (start.ts)', () => {
    const options: StartConsoleOptions = { store: createMemoryStore(), port: 0, host: '127.0.0.1' };
  });

  it('RunningConsole (start.ts)', async () => {
    async function stop(running: RunningConsole): Promise<void> {
      log(`closing ${running.url}`);
      await running.close();
    }
    await stop(await startConsole({ store: createMemoryStore() }));
    expect(takePrinted()[0]).toMatch(/^closing http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('startConsole (start.ts)', async () => {
    const running = await startConsole({ store: createMemoryStore() });
    log(running.url.startsWith('http://127.0.0.1:'));
    expectPrinted('true');
    await running.close();
  });
});
