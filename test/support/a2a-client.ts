import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { issueGrantToken } from '../../src/operations/tokens/issue-tokens.ts';
import type { TestProvider } from './provider.ts';

// Driving the preference agent (POST /a2a) with @a2a-js/sdk's own client, as another agent
// would: the card from /.well-known/agent-card.json, JSON-RPC over HTTP with the grant's bearer
// token. Not a *.test.ts file.

/** A fetch that sends the grant's token (the card fetch and the calls alike). */
export function bearerFetch(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

export async function a2aClient(p: TestProvider, token: string): Promise<Client> {
  const fetchImpl = bearerFetch(token);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(p.url);
}

/** A token for the A2A resource, bound to a grant of the test provider. */
export async function a2aGrant(p: TestProvider, draft: Record<string, unknown> = {}) {
  const g = await p.grant(draft);
  const token = (await issueGrantToken(p.deps, g.grant, undefined, `${p.url}/a2a`)).access_token;
  return { grant: g.grant, token };
}

export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** A user message naming a skill in a data part `{method, params}`. */
export function ask(skill: string, params: Record<string, unknown> = {}): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [dataPart({ method: skill, params })],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/** The PPX object of a completed task (its artifact's data part). */
export function resultOf(task: Task): unknown {
  const part = task.artifacts[0]?.parts[0];
  return part?.content?.$case === 'data' ? part.content.value : undefined;
}

/** The PPX error body of a failed task (its status message's data part). */
export function errorOf(task: Task): { error: string; error_description: string } | undefined {
  const part = task.status?.message?.parts.find((x) => x.content?.$case === 'data');
  return part?.content?.$case === 'data' ? part.content.value : undefined;
}

export function isTask(x: unknown): x is Task {
  return typeof x === 'object' && x !== null && 'status' in x && 'artifacts' in x;
}

export { TaskState };
