import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

// Requests whose params do not have the shape their method requires, answered -32602 Invalid
// params in words before the SDK sees them. The SDK parses a request with its handler's schema
// and answers a failed parse as -32603 Internal error with the validator's raw JSON dump
// (`initialize` with a numeric protocolVersion), or -32602 with the dump in the message
// (tools/call): neither says what was wrong to a person reading it, and -32603 says it was the
// server's fault. resources/read is checked by its own handler (server.ts), in its own words.

const SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
};

/** The most issues named in one message. */
const MAX_ISSUES = 5;

/** The error answer for a request whose params are malformed; undefined for anything else. */
export function invalidParams(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  // Own keys only: a method named `constructor` or `toString` is just an unknown method.
  if (!Object.hasOwn(SCHEMAS, message.method)) return undefined;
  const schema = SCHEMAS[message.method]!;
  const parsed = schema.safeParse({ method: message.method, params: message.params });
  if (parsed.success) return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Invalid params for ${message.method}: ${described(parsed.error)}`,
    },
  };
}

/** "params.protocolVersion: expected string, received number; …", at most MAX_ISSUES of them. */
function described(error: z.ZodError): string {
  const issues = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join('.') || 'the request';
    return `${path}: ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  const more = error.issues.length > MAX_ISSUES ? ` (and ${error.issues.length - MAX_ISSUES} more)` : '';
  return `${issues.join('; ')}${more}`;
}
