import {
  CancelTaskRequest,
  GetExtendedAgentCardRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
} from '@a2a-js/sdk';
import { z } from 'zod';
import { parseInput } from '../../model/validate.ts';

// The params of the A2A methods the SDK's handlers answer, checked before they see them. The SDK
// reads params without checking their types: the 1.0 handler converts each field with String()
// or Number() (which throws on an object whose own `toString` is not a function), the 0.3 handler
// calls string and array methods on whatever it is given (`taskId.trim`, an `extensions` that is
// not a list) and binds a `contextId` object to a query. Each became -32603 Internal error in the
// SDK's words; here it is -32602 Invalid params, saying what is wrong.

/** The SDK's own readers of the 1.0 params, by method. */
const V1_READERS: Readonly<Record<string, { fromJSON(params: unknown): unknown }>> = {
  SendMessage: SendMessageRequest,
  SendStreamingMessage: SendMessageRequest,
  GetTask: GetTaskRequest,
  ListTasks: ListTasksRequest,
  CancelTask: CancelTaskRequest,
  SubscribeToTask: SubscribeToTaskRequest,
  GetExtendedAgentCard: GetExtendedAgentCardRequest,
};

const Text = z.string();
const Metadata = z.record(z.string(), z.unknown());

/** A 0.3 message (A2A 0.3 §6.4): the fields the handler reads, with the types it assumes. */
const V03Message = z.looseObject({
  kind: Text.optional(),
  messageId: Text.optional(),
  role: Text.optional(),
  contextId: Text.optional(),
  taskId: Text.optional(),
  parts: z.array(z.looseObject({ kind: Text.optional(), metadata: Metadata.optional() })).optional(),
  extensions: z.array(Text).optional(),
  referenceTaskIds: z.array(Text).optional(),
  metadata: Metadata.optional(),
});

const V03Send = z.looseObject({
  message: V03Message,
  configuration: z
    .looseObject({
      acceptedOutputModes: z.array(Text).optional(),
      historyLength: z.number().optional(),
      blocking: z.boolean().optional(),
    })
    .optional(),
  metadata: Metadata.optional(),
});

const V03Task = z.looseObject({
  id: Text,
  historyLength: z.number().optional(),
  metadata: Metadata.optional(),
});

const V03_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  'message/send': V03Send,
  'message/stream': V03Send,
  'tasks/get': V03Task,
  'tasks/cancel': V03Task,
  'tasks/resubscribe': V03Task,
};

/** What is wrong with the params of an SDK-answered method, or undefined when they can be read. */
export function paramsProblem(method: string, params: unknown): string | undefined {
  const reader = Object.hasOwn(V1_READERS, method) ? V1_READERS[method] : undefined;
  if (reader !== undefined) {
    try {
      reader.fromJSON(params ?? {});
      return undefined;
    } catch {
      return `the params of ${method} cannot be read as A2A 1.0 gives them (a field holds a value of the wrong type)`;
    }
  }
  const schema = Object.hasOwn(V03_SCHEMAS, method) ? V03_SCHEMAS[method] : undefined;
  if (schema === undefined) return undefined;
  const parsed = parseInput(schema, params ?? {}, `the params of ${method}`);
  return parsed.ok ? undefined : parsed.error.description;
}
