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
// `initialize` and `ping` are 2025 methods: 2026-07-28 has neither (no handshake; `ping` is
// gone), so in that generation they are left to the SDK, which answers them -32601 Method not
// found (HTTP 404) whatever their params.

/** The protocol generation of a request, as the SDK's entry classified it (legacy: 2025). */
export type Era = 'legacy' | 'modern';

/** Methods of the 2025 generation only. */
const LEGACY_SCHEMAS: Readonly<Record<string, StandardSchemaV1Sync>> = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
};

/** Methods of both generations. */
const SCHEMAS: Readonly<Record<string, StandardSchemaV1Sync>> = {
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
};

/** The most issues named in one message. */
const MAX_ISSUES = 5;

/**
 * The error answer for a request of the given generation whose params are malformed; undefined
 * for anything else.
 */
export function invalidParams(message: JSONRPCMessage, era: Era): JSONRPCMessage | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const schema = schemaOf(message.method, era);
  if (schema === undefined) return undefined;
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

function schemaOf(method: string, era: Era): StandardSchemaV1Sync | undefined {
  // Own keys only: a method named `constructor` or `toString` is just an unknown method.
  if (Object.hasOwn(SCHEMAS, method)) return SCHEMAS[method];
  if (era === 'legacy' && Object.hasOwn(LEGACY_SCHEMAS, method)) return LEGACY_SCHEMAS[method];
  return undefined;
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
