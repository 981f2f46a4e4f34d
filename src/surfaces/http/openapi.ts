import { ERROR_STATUS, type PpxErrorCode, statusAtTokenEndpoint, statusOf } from '../../model/errors.ts';
import { toJsonSchema } from '../../model/json-schema.ts';
import type { ProviderInfo } from '../../operations/deps.ts';
import { Components } from './openapi-components.ts';
import type { Route } from './route.ts';

const ErrorSchema = {
  type: 'object',
  required: ['error', 'error_description'],
  properties: {
    error: { type: 'string', enum: Object.keys(ERROR_STATUS) },
    error_description: { type: 'string' },
    grant_id: { type: 'string' },
    details: { type: 'object' },
  },
  additionalProperties: false,
};

/** OpenAPI 3.1 for the HTTP surface, generated from its routes (schemas are JSON Schema 2020-12). */
export function openApiDocument(provider: ProviderInfo, routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components = new Components();
  // Answers first, so that a PPX object's answer form takes its plain name (Claim), and an input
  // form that differs takes "…Input".
  const answers = new Map(
    routes.map((r) => [r, components.ref(r.operation.output, 'output', named(r, 'Response'))]),
  );
  for (const r of routes) {
    const { http, operation } = r;
    const success = {
      description: 'Success',
      content: { 'application/json': { schema: answers.get(r) } },
    };
    const responses: Record<string, unknown> = { [String(http.successStatus ?? 200)]: success };
    if (http.acceptedWhen) responses['202'] = { ...success, description: 'Accepted' };
    // A token endpoint answers a DPoP proof's failures 400 (RFC 9449 §5), a resource 401.
    const statusFor = http.dpop === 'token-endpoint' ? statusAtTokenEndpoint : statusOf;
    for (const [status, codes] of groupByStatus(r.errors, statusFor)) {
      responses[String(status)] = {
        description: codes.join(', '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    responses['500'] = {
      description: 'server_error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: operation.summary,
      tags: [http.tag],
      responses,
      ...(r.auth === 'bearer' ? { security: [{ bearer: [] }] } : { security: [] }),
    };
    if (http.input === 'body') {
      op['requestBody'] = {
        required: false,
        content: {
          'application/json': { schema: components.ref(operation.input, 'input', named(r, 'Request')) },
        },
      };
    }
    if (http.input === 'path') op['parameters'] = pathParameters(schemaOf(operation.input, 'input'));
    if (http.input === 'query') op['parameters'] = queryParameters(schemaOf(operation.input, 'input'));
    // Hono's `:name` path segments are OpenAPI's `{name}`.
    const path = http.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] = { ...paths[path], [http.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: `${provider.name} — PPX HTTP binding`,
      version: '0.1.0',
      description: 'PPX draft 0.1 over HTTP (bindings/http.md). Errors use the binding error shape.',
    },
    servers: [{ url: provider.baseUrl }],
    paths,
    components: {
      schemas: { Error: ErrorSchema, ...components.schemas },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}

/** `GetProfileSummaryResponse` for the operation `get_profile_summary`'s unnamed answer. */
function named(r: Route, suffix: 'Request' | 'Response'): string {
  const pascal = r.operation.name.replace(/(^|_)([a-z])/g, (_, _sep: string, c: string) => c.toUpperCase());
  return `${pascal}${suffix}`;
}

function schemaOf(schema: Parameters<typeof toJsonSchema>[0], io: 'input' | 'output') {
  const { $schema: _drop, ...rest } = toJsonSchema(schema, io);
  return rest;
}

function groupByStatus(
  codes: readonly string[],
  statusFor: (code: PpxErrorCode) => number,
): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = statusFor(code as PpxErrorCode);
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return out;
}

function pathParameters(schema: Record<string, unknown>) {
  const props = (schema['properties'] ?? {}) as Record<string, unknown>;
  return Object.entries(props).map(([name, s]) => ({ name, in: 'path', required: true, schema: s }));
}

function queryParameters(schema: Record<string, unknown>) {
  const props = (schema['properties'] ?? {}) as Record<string, unknown>;
  return Object.entries(props).map(([name, s]) => ({ name, in: 'query', required: false, schema: s }));
}
