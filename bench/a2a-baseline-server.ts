import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { AgentCard, Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from '@a2a-js/sdk/server';
import { serve } from '@hono/node-server';

// Child-process entry for `npm run bench:a2a`: a bare A2A server on @a2a-js/sdk 1.3 — its
// DefaultRequestHandler with the in-memory task store, its JSON-RPC transport handler, on
// @hono/node-server — whose executor answers every SendMessage with the provider's own completed
// task for `get_effective_profile` (read from the file named by argv[2], A2A 1.0 JSON), under the
// request's ids. No auth, no provider store, no policy, no resolution, no audit, no router.
// Prints one JSON line {"url"} on stdout.

const path = process.argv[2];
if (!path) throw new Error('usage: a2a-baseline-server.ts <task JSON file>');
const template = Task.fromJSON(JSON.parse(readFileSync(path, 'utf8')));

const card = AgentCard.fromJSON({
  name: 'bare',
  description: 'bare A2A server',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [],
});
const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), {
  async execute(request, bus) {
    const task = {
      ...template,
      id: request.taskId,
      contextId: request.contextId,
      history: [request.userMessage],
    };
    bus.publish(AgentEvent.task(task));
    bus.finished();
  },
  async cancelTask() {},
});
const transport = new JsonRpcTransportHandler(handler);
const user = { isAuthenticated: true, userName: 'bare' };

const server = serve(
  {
    fetch: async (request: Request) => {
      const answer = await transport.handle(
        await request.text(),
        new ServerCallContext({ user, requestedVersion: '1.0' }),
      );
      return new Response(JSON.stringify(answer), { headers: { 'Content-Type': 'application/json' } });
    },
    port: 0,
    hostname: '127.0.0.1',
  },
  (info: AddressInfo) =>
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}` })}\n`),
);
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
