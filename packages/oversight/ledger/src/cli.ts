#!/usr/bin/env node
/// <reference types="node" />
// `npx parley-ledger verify <file.jsonl> [--key keyId=publicKeyHex]… [--head seq:hash]`: verifies an
// exported chain offline; exit code 0 when it holds, 1 when it does not, 2 on bad usage.
import { readFileSync } from 'node:fs';
import { runCli } from './internal/cli-run.js';

process.exitCode = runCli(process.argv.slice(2), {
  read: (path) => readFileSync(path, 'utf8'),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
