import {
  isJSONRPCRequest,
  type JSONRPCMessage,
  ProtocolErrorCode,
  type StandardSchemaV1,
  type StandardSchemaV1Sync,
  specTypeSchemas,
} from '@modelcontextprotocol/server';

// Requests whose params do not have the shape their method requires, answered -32602 Invalid
// params in words before the SDK sees them. The SDK parses a request with its handler's schema
// and answers a failed parse as -32603 Internal error with the validator's raw JSON dump
// (`initialize` with a numeric protocolVersion), or -32602 with the dump in the message
// (tools/call): neither says what was wrong to a person reading it, and -32603 says it was the
// server's fault. resources/read is checked by its own handler (server.ts), in its own words.

const SCHEMAS: Readonly<Record<string, StandardSchemaV1Sync>> = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
};

/** The most issues named in one message. */
const MAX_ISSUES = 5;

/** The error answer for a request whose params are malformed; undefined for anything else. */
export function invalidParams(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  // Own keys only: a method named `constructor` or `toString` is just an unknown method.
  if (!Object.hasOwn(SCHEMAS, message.method)) return undefined;
  const schema = SCHEMAS[message.method]!;
  const checked = schema['~standard'].validate({ method: message.method, params: message.params });
  if (checked.issues === undefined) return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ProtocolErrorCode.InvalidParams,
      message: `Invalid params for ${message.method}: ${described(checked.issues)}`,
    },
  };
}

/** "params.protocolVersion: expected string, received number; …", at most MAX_ISSUES of them. */
function described(all: readonly StandardSchemaV1.Issue[]): string {
  const issues = all.slice(0, MAX_ISSUES).map((issue) => {
    const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
    return `${path || 'the request'}: ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  const more = all.length > MAX_ISSUES ? ` (and ${all.length - MAX_ISSUES} more)` : '';
  return `${issues.join('; ')}${more}`;
}
