import type { z } from 'zod';
import type { AuditAction } from '../../model/audit-event.ts';
import type { PpxErrorCode, PpxFailure, Result } from '../../model/errors.ts';
import type { PpxObjectName } from '../../model/json-schema.ts';
import type { OperationRequirement } from '../../policy/requirement.ts';
import type { Caller } from '../callers/caller.ts';
import type { TokenCaller } from '../callers/token-caller.ts';
import type { Deps } from '../deps.ts';

// The one shape of a callable operation (ARCHITECTURE.md "One catalog of operations", STYLE §2).
// Each operation is declared once: its name, what it takes and returns, who may call it, what a
// grant must allow, what it audits, and its handler with typed input. Each surface derives its
// own listing from the catalog (HTTP routes and OpenAPI, MCP tools and tools/list, A2A skills and
// the agent card), so a new operation is one entry and a surface cannot forget a check: the
// checks are in the handler, which every surface calls the same way.

/**
 * Who may call an operation:
 * - `public`: anyone, no token (discovery, the consent flow's client side);
 * - `caller`: one subject or one grant (operations/callers/caller.ts); the handler decides which of the
 *   two it serves and refuses the other with its own words;
 * - `token`: a grant-bound token as a whole, one grant or a package of several (the MCP
 *   child-discovery tool): it runs before any grant is named.
 */
export type CallerNeed = 'public' | 'caller' | 'token';

type CallerOf<C extends CallerNeed> = C extends 'public'
  ? undefined
  : C extends 'caller'
    ? Caller
    : TokenCaller;

/**
 * What a grant must allow for a grantee to call the operation, whatever its input holds: every
 * surface checks it after the token and before the input (WIRE-NOTES §2.7).
 */
type GrantRequirement = OperationRequirement;

/** Where the HTTP binding reads the input from. */
type HttpInput = 'body' | 'query' | 'path' | 'none';

export interface HttpBinding<Out = unknown> {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Hono path syntax: `:name` segments are path parameters (the input, for `input: 'path'`). */
  readonly path: string;
  readonly tag: 'discovery' | 'profile' | 'consent' | 'audit' | 'extensions' | 'export' | 'derived-views';
  readonly input: HttpInput;
  /** The status of a success (default 200), e.g. 201 when the operation creates something. */
  readonly successStatus?: number;
  /** When it says so, a success is 202 Accepted instead (a proposal queued for the subject). */
  acceptedWhen?(value: Out): boolean;
  /**
   * `Cache-Control: no-store` on every answer of a public route that hands out tokens or other
   * secrets (bearer routes always get it: their answers are personal data).
   */
  readonly noStore?: true;
  /**
   * How many levels of the answer its JSON is made by hand, so that the shared values below them
   * are serialized once and copied as bytes (surfaces/shared/json-text.ts#jsonBytes; default: one
   * level): 3 for an audit page, whose events share their claim-key lists.
   */
  readonly answerDepth?: number;
  /**
   * The one failure this route answers whenever the body cannot be read or fails its schema, and
   * in place of any failure the operation returns with the same code: the caller never learns
   * which check or which field failed (WIRE-NOTES §2.3). A body too large or not JSON at all is
   * still answered as such (413, 415): that says nothing about the grant.
   */
  readonly uniformFailure?: PpxFailure;
  /**
   * `body`: the uniform failure stands only for unreadable or invalid bodies, and the operation's
   * own failures go out as it words them. For an operation that is uniform itself where it must
   * be, and says more only once the caller has shown what it holds (a refresh that tells an
   * authenticated client holding the token why its access ended).
   */
  readonly uniformFailureFor?: 'body';
  /**
   * `token-endpoint`: the route hands out tokens and takes a DPoP proof as a token endpoint does
   * (RFC 9449 §5): the pipeline checks a `DPoP` header's proof (`htm` the method, `htu` the base
   * URL and this path, no `ath`) before the operation runs, and hands its key to the operation
   * (`RequestFacts.dpop`); a bad proof, and a DPoP failure of the operation, are 400 as at the
   * OAuth token endpoint, and every answer carries `DPoP-Nonce` when nonces are on.
   */
  readonly dpop?: 'token-endpoint';
}

/**
 * What a surface learned about the request besides its input and its caller, handed to the
 * operation as a typed value (never through the input, which the client writes).
 */
export interface RequestFacts {
  /** The key of the request's valid DPoP proof (RFC 9449 §5), on a `dpop: 'token-endpoint'` route. */
  readonly dpop?: { readonly jkt: string } | undefined;
}

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

/** Which official PPX schema an output follows: the output itself, or one of its members. */
interface Follows {
  readonly object: PpxObjectName;
  /** The member that holds it (a list's items, or one object); absent: the output is one. */
  readonly at?: string;
}

export interface McpBinding {
  readonly annotations: ToolAnnotations;
  /**
   * The members of the output the tool's published schema declares: what an agent relies on
   * (tools/list is paid for in every session). The others are still allowed, and the official
   * schema the output follows (`follows`) describes them.
   */
  readonly shows: readonly string[];
  /**
   * How the tool takes `grant_id` (`caller` operations only): `read` tools take one id or a list
   * (a list fans out: one call per named grant); `write` tools take exactly one.
   */
  readonly grantIds?: 'read' | 'write';
  /**
   * The operation's own `grant_id` input names the grant the call acts under: on MCP that is the
   * tool's `grant_id` argument, so the tool does not take it twice.
   */
  readonly grantIdIsTheCallsGrant?: true;
}

/** How the A2A surface offers the operation as a skill of the agent card (WIRE-NOTES §6). */
export interface A2aBinding {
  /** The skill id, also the JSON-RPC `method` of the binding's literal form. */
  readonly skill: string;
  readonly tags: readonly string[];
  /** Requests in words, as an agent would ask for them. */
  readonly examples: readonly string[];
}

/**
 * How the person's review run (AG-UI) offers the operation as a tool: the person acting on
 * their own profile from their app, through the same handler as the HTTP API.
 */
interface AguiBinding {
  /** True when a call can change the person's state (its STATE_DELTA follows the result). */
  readonly writes: boolean;
}

/**
 * What a handler may return for an output schema: the schema's type, read-only all the way down
 * (results share arrays between requests and never write to them: cache/identity-memo.ts).
 */
type OutputOf<T> = T extends readonly (infer E)[]
  ? readonly OutputOf<E>[]
  : T extends object
    ? { readonly [K in keyof T]: OutputOf<T[K]> }
    : T;

/** An operation as declared: the handler's input is what `input` parses to. */
export interface OperationSpec<C extends CallerNeed, I extends z.ZodType, O extends z.ZodType> {
  /** snake_case, the SPEC §9 name where it has one; MCP tools are `ppx_<name>`. */
  readonly name: string;
  /** A few words, for a person (MCP tool title, A2A skill name). */
  readonly title: string;
  /** One line (OpenAPI summary). */
  readonly summary: string;
  /** What it is for, when to call it and what comes back, for a model (MCP, A2A). */
  readonly description?: string;
  readonly caller: C;
  readonly grant?: GrantRequirement;
  /** The audit actions a successful call records (one at least), none for public operations. */
  readonly audit: readonly AuditAction[];
  readonly input: I;
  readonly output: O;
  /** The failures of the operation itself; each surface adds those of its transport and auth. */
  readonly errors: readonly PpxErrorCode[];
  /** The official PPX schema the output follows, named where a surface describes its output. */
  readonly follows?: Follows;
  run(
    deps: Deps,
    caller: CallerOf<C>,
    input: z.output<I>,
    facts?: RequestFacts,
  ): Promise<Result<OutputOf<z.output<O>>>>;
  readonly http?: HttpBinding<OutputOf<z.output<O>>>;
  readonly mcp?: McpBinding;
  readonly a2a?: A2aBinding;
  /** Offered to the person as a tool of their AG-UI review run (docs/ag-ui.md, "The person's actions"). */
  readonly agui?: AguiBinding;
}

/**
 * An entry of the catalog, as surfaces see it. Surfaces hold entries of every shape, so input and
 * output are erased here; each surface parses the input with the entry's own `input` schema (or
 * that schema extended with its transport's members) before calling `run`, and never otherwise.
 */
export interface CatalogOperation {
  readonly name: string;
  readonly title: string;
  readonly summary: string;
  readonly description?: string;
  readonly caller: CallerNeed;
  readonly grant?: GrantRequirement;
  readonly audit: readonly AuditAction[];
  readonly input: z.ZodType;
  readonly output: z.ZodType;
  readonly errors: readonly PpxErrorCode[];
  readonly follows?: Follows;
  run(
    deps: Deps,
    caller: Caller | TokenCaller | undefined,
    input: unknown,
    facts?: RequestFacts,
  ): Promise<Result<unknown>>;
  readonly http?: HttpBinding;
  readonly mcp?: McpBinding;
  readonly a2a?: A2aBinding;
  readonly agui?: AguiBinding;
}

/**
 * Declares an operation. The compiler ties the handler to the schemas: it receives what `input`
 * parses to and must return what `output` describes. The returned entry is the same object,
 * seen through the erased shape every surface holds.
 */
export function defineOperation<C extends CallerNeed, I extends z.ZodType, O extends z.ZodType>(
  spec: OperationSpec<C, I, O>,
): CatalogOperation {
  return spec;
}

/** The OpenAPI operationId: the name in lowerCamelCase (`get_profile_summary` → `getProfileSummary`). */
export function operationIdOf(name: string): string {
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The MCP tool name (WIRE-NOTES §5: every tool is `ppx_<operation>`). */
export function toolNameOf(name: string): `ppx_${string}` {
  return `ppx_${name}`;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
