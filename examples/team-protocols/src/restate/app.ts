// One app process of the team on Restate: serves the requests object and the lead on PORT
// (HTTP/2), as a replica behind the server would. Run by run.ts as a child process.
import { createServer } from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { leadService, requests } from './services.js';

const port = Number(process.env.PORT);
const handler = restate.createEndpointHandler({
  services: [
    requests,
    leadService(process.env.EFFECT_LOG === undefined ? {} : { effectLog: process.env.EFFECT_LOG }),
  ],
  logger: () => {},
});
createServer(handler).listen(port, '127.0.0.1', () => process.send?.('ready'));
