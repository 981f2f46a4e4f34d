// The MUSTs this stage implements, each tied to the spec text it comes from and to the tests
// that verify it. test/requirements.test.ts fails when a requirement has no test, or when a named
// test no longer exists (renamed or deleted), so the list cannot silently rot.

export interface Requirement {
  readonly id: string;
  /** Where the rule is written. */
  readonly source: string;
  readonly rule: string;
  /** [test file, a substring of a test or suite title in it]. */
  readonly tests: readonly (readonly [string, string])[];
}

const E2E = 'test/e2e/http/';

export const REQUIREMENTS: readonly Requirement[] = [
  {
    id: 'consent.deny-by-default',
    source: 'SPEC §6.2 rule 1, §10 MUST 1–2',
    rule: 'no access without an authenticated caller and an active grant',
    tests: [
      [`${E2E}auth-matrix.test.ts`, 'answers no token with a bare 401 challenge'],
      ['test/unit/policy/grant-status.test.ts', 'an unparseable expires_at fails closed'],
    ],
  },
  {
    id: 'consent.scope',
    source: 'SPEC §6.2 rule 3, bindings/http.md',
    rule: 'claims outside the grant never appear and are indistinguishable from absent ones',
    tests: [
      [`${E2E}consent.test.ts`, 'claims outside the grant never appear'],
      [`${E2E}consent.test.ts`, 'a key-limited grant sees exactly its keys'],
      [
        'test/unit/policy/property.test.ts',
        'random grant/request/claim sets never leak outside the grant or the narrowing',
      ],
    ],
  },
  {
    id: 'consent.never-widen',
    source: 'SPEC §10 MUST NOT 1',
    rule: 'a request may narrow namespaces, keys and domain, never widen them',
    tests: [
      [`${E2E}consent.test.ts`, 'a namespace outside the grant is 403 insufficient_scope'],
      [`${E2E}consent.test.ts`, 'requested_keys narrows'],
      ['test/unit/policy/scope.test.ts', 'widening to a supported namespace outside the grant'],
    ],
  },
  {
    id: 'consent.purpose',
    source: 'SPEC §6.2 rule 3',
    rule: 'a declared purpose must be one the grant allows',
    tests: [[`${E2E}consent.test.ts`, 'a purpose outside the grant is 403 insufficient_scope']],
  },
  {
    id: 'consent.expiry',
    source: 'SPEC §6.2 rule 4',
    rule: 'an expired grant authorizes nothing, from the instant of expires_at',
    tests: [
      [`${E2E}auth-matrix.test.ts`, 'refuses an expired grant with 401 grant_expired'],
      ['test/unit/policy/grant-status.test.ts', 'an active grant is expired exactly at expires_at'],
    ],
  },
  {
    id: 'consent.revocation',
    source: 'SPEC §6.2 rule 7, §10 MUST 5, WIRE-NOTES §2.5',
    rule: 'a revoked grant fails on its very next request with 401 invalid_token / grant_revoked',
    tests: [
      [
        `${E2E}auth-matrix.test.ts`,
        'refuses a revoked grant on the very next request with 401 grant_revoked',
      ],
      ['test/e2e/durability.test.ts', 'a revocation and the audit trail survive SIGKILL and a restart'],
    ],
  },
  {
    id: 'consent.cross-domain',
    source: 'SPEC §6.5',
    rule: 'each cross_domain_transfer value is enforced',
    tests: [
      [`${E2E}consent.test.ts`, 'cross-domain claims under each cross_domain_transfer value'],
      [`${E2E}consent.test.ts`, 'requested_domain outside allowed_domains is 403 cross_domain_denied'],
      [
        'test/unit/policy/visibility.test.ts',
        'allow_if_same_provider: cross-domain claims pass unless imported',
      ],
    ],
  },
  {
    id: 'consent.writeback',
    source: 'SPEC §6.2 rule 5, §6.6',
    rule: 'each writeback_policy value decides refuse / review / apply',
    tests: [
      ['test/unit/policy/writeback.test.ts', 'forbidden refuses every proposal'],
      ['test/unit/policy/writeback.test.ts', 'auto_for_low_risk queues high-confidence inferences'],
    ],
  },
  {
    id: 'consent.foreign-tokens',
    source: 'SPEC §10 MUST 1, §6.2 rule 2',
    rule: 'tokens signed by another key, for another audience, tampered or expired are refused',
    tests: [
      ['test/e2e/http/consent-attacks.test.ts', 'a token signed by another key is 401 invalid_token'],
      ['test/e2e/http/consent-attacks.test.ts', 'a token with another audience or issuer'],
      ['test/e2e/http/consent-attacks.test.ts', 'a tampered payload is 401 invalid_token'],
    ],
  },
  {
    id: 'consent.other-subjects',
    source: 'SPEC §4.5',
    rule: "a grant or subject token never reaches another subject's profile or grants",
    tests: [
      [
        'test/e2e/http/consent-attacks.test.ts',
        'the subject token of one subject does not read the other profile',
      ],
      [
        'test/e2e/http/consent-attacks.test.ts',
        'a grantee cannot revoke another grant (404), which keeps working',
      ],
    ],
  },
  {
    id: 'privacy.pairwise',
    source: 'PDPP read profile (pairwise identifiers), issue 3 item 5',
    rule: 'grantees see pairwise subject ids, never the internal one',
    tests: [
      [`${E2E}consent.test.ts`, 'differ between clients, are stable, and are never the internal id'],
      ['test/unit/auth/pairwise.test.ts', 'different across clients'],
    ],
  },
  {
    id: 'provenance.stated-vs-inferred',
    source: 'SPEC §4.3, §4.4, §10 MUST 4',
    rule: 'user_stated is told apart from every other kind; inference is never presented as stated',
    tests: [
      [`${E2E}consent.test.ts`, 'every claim keeps its source.kind in query, effective and export'],
      [`${E2E}consent.test.ts`, 'the summary marks stated: true only for user_stated claims'],
    ],
  },
  {
    id: 'model.ids',
    source: 'SPEC §5',
    rule: 'ids are ppx:<type>:<id> and never reused',
    tests: [
      ['test/unit/model/ids.test.ts', '10 000 ids are all distinct'],
      ['test/store/sqlite-store.test.ts', 'rejects a claim id that belongs to another profile'],
    ],
  },
  {
    id: 'model.official-schemas',
    source: 'WIRE-NOTES §1, SPEC §5',
    rule: 'every emitted PPX object validates against the official schema; official examples validate with ours',
    tests: [
      ['test/unit/model/examples.test.ts', 'official examples validate with the product zod schemas'],
      [
        'test/unit/model/published-schemas.test.ts',
        'product-produced instances validate against the OFFICIAL',
      ],
      [`${E2E}discovery-schemas.test.ts`, 'every grant of /v1/consent/grants validates'],
    ],
  },
  {
    id: 'discovery.card',
    source: 'SPEC §7, bindings/http.md',
    rule: 'the discovery card validates, lists core, and its advertised URLs resolve',
    tests: [
      [`${E2E}discovery-schemas.test.ts`, 'validates and advertises core and the HTTP binding'],
      [`${E2E}discovery-schemas.test.ts`, 'openapi_uri and grant_jwks_uri resolve'],
    ],
  },
  {
    id: 'http.effective-profile',
    source: 'bindings/http.md "Effective-profile response body"',
    rule: 'query and effective return effective-profile documents with applied_modifiers, even empty',
    tests: [
      [`${E2E}resolution.test.ts`, 'a context that matches nothing still reports applied_modifiers: []'],
      [`${E2E}discovery-schemas.test.ts`, 'validates for a grant token, with the grant echo'],
    ],
  },
  {
    id: 'http.errors',
    source: 'bindings/http.md "Error shape"',
    rule: 'bad input gets a 4xx with a PPX code and a readable description, never a 500 or a stack',
    tests: [
      [`${E2E}bad-input.test.ts`, 'never answers 500 and never leaks internals, whatever the input'],
      [`${E2E}bad-input.test.ts`, 'malformed JSON is 400 invalid_request'],
      [`${E2E}body-limits.test.ts`, 'a chunked body over 256 KiB is 413 payload_too_large'],
    ],
  },
  {
    id: 'http.rate-limit',
    source: 'bindings/http.md "Rate limits"',
    rule: 'RateLimit-* headers are advertised; over the limit is 429',
    tests: [[`${E2E}rate-limit.test.ts`, 'advertises the limit, counts down, and answers the 6th request']],
  },
  {
    id: 'http.openapi',
    source: 'bindings/http.md "OpenAPI"',
    rule: 'an OpenAPI 3.1 document at /openapi.json describes every route',
    tests: [[`${E2E}discovery-schemas.test.ts`, 'is a valid OpenAPI 3.1 document listing every route']],
  },
  {
    id: 'resolution.context',
    source: 'SPEC §5.3, §9',
    rule: 'modifiers whose condition matches apply; their ids are reported; results are deterministic',
    tests: [
      [
        `${E2E}resolution.test.ts`,
        'is deterministic: the same request twice gives the same claims and modifiers',
      ],
      ['test/unit/resolve/effective.test.ts', 'is deterministic under any input order'],
    ],
  },
  {
    id: 'audit.every-access',
    source: 'SPEC §10 MUST 3',
    rule: 'every access to a claim is audited (who, grant, operation, keys, when); the log is append-only',
    tests: [
      [`${E2E}audit-export.test.ts`, 'records a grantee read with actor, grant, action and the keys read'],
      [`${E2E}audit-export.test.ts`, 'audits a denied request with outcome "denied"'],
      ['test/store/sqlite-store.test.ts', 'refuses UPDATE and DELETE on audit_events at the database level'],
    ],
  },
  {
    id: 'export.scope',
    source: 'SPEC §9 export_profile, §10 MUST 6',
    rule: 'the subject exports everything; a grantee needs export and gets only its scope',
    tests: [
      [`${E2E}audit-export.test.ts`, 'gives the subject everything'],
      [`${E2E}audit-export.test.ts`, 'refuses a grant without export with 403 insufficient_scope'],
    ],
  },
  {
    id: 'import.atomic',
    source: 'issue 2 item 8',
    rule: 'import validates and refuses a bad file with a clear message, writing nothing',
    tests: [['test/cli/files.test.ts', 'a bad file: exit 1, the problem named, the database unchanged']],
  },
  {
    id: 'consent-v2.registered-clients',
    source: 'WIRE-NOTES §2.1',
    rule: 'unknown clients are 404 unknown_client; redirect_uri matches a registered one exactly',
    tests: [
      ['test/e2e/http/consent/request.test.ts', 'an unknown client is 404 unknown_client'],
      ['test/e2e/http/consent/request.test.ts', 'redirect_uri must match a registered one exactly'],
    ],
  },
  {
    id: 'consent-v2.redirect-uri-absent',
    source: 'WIRE-NOTES §2.1, RFC 6749 §3.1.2.3, OAuth 2.1 §4.1.1',
    rule: 'without redirect_uri the only registered URI is used; several: 400; none: a back-channel client whose decision ends on the provider page',
    tests: [
      ['test/e2e/http/consent/redirect-uri.test.ts', 'a client with one registered URI: that URI is used'],
      ['test/e2e/http/consent/redirect-uri.test.ts', 'a client with several registered URIs must name one'],
      ['test/e2e/http/consent/redirect-uri.test.ts', 'back-channel, decided on the page'],
      ['test/e2e/web/consent-browser.browser.test.ts', 'a back-channel client (no redirect URI)'],
      ['test/e2e/oauth/redirect-uri.test.ts', 'one registered URI: it is used'],
      ['test/e2e/oauth/redirect-uri.test.ts', 'a client registered with none cannot use the code flow'],
    ],
  },
  {
    id: 'tokens.one-spelling',
    source: 'RFC 4648 §3.5, RFC 7515 §2, issue 10 item 6',
    rule: 'only the canonical base64url spelling of a token is accepted, and all its spellings share one rate-limit budget',
    tests: [
      ['test/e2e/http/token-spellings.test.ts', 'the canonical spelling is accepted, the 15 others are 401'],
      ['test/e2e/http/token-spellings.test.ts', 'at most 5 requests get through, whatever the spellings'],
      ['test/unit/auth/tokens.test.ts', 'a non-canonical spelling of the header or the payload is refused'],
    ],
  },
  {
    id: 'http.response-headers',
    source: 'issue 10 item 8, RFC 6797, RFC 9111 §5.2.2.5',
    rule: 'nosniff on every answer, no-store on every /mcp answer, HSTS on every answer under an https base URL',
    tests: [
      ['test/e2e/http/response-headers.test.ts', 'X-Content-Type-Options: nosniff on every answer'],
      ['test/e2e/http/response-headers.test.ts', 'Cache-Control: no-store on every /mcp answer'],
      ['test/e2e/http/response-headers.test.ts', 'Strict-Transport-Security (one year) on every answer'],
    ],
  },
  {
    id: 'consent-v2.pkce-s256',
    source: 'WIRE-NOTES §2.1, §3',
    rule: 'PKCE S256 only: a missing challenge or plain is 400; the verifier is checked at exchange',
    tests: [
      ['test/e2e/http/consent/request.test.ts', 'method plain is 400'],
      ['test/e2e/http/consent/request.test.ts', 'a missing code_challenge is 400'],
      ['test/e2e/http/consent/exchange.test.ts', 'a wrong code verifier is invalid_grant'],
      ['test/unit/auth/secrets.test.ts', 'matches the RFC 7636 appendix B example'],
    ],
  },
  {
    id: 'consent-v2.pending-no-authority',
    source: 'WIRE-NOTES §2.1',
    rule: 'a pending request carries no authority; the request token is returned once and stored hashed',
    tests: [
      ['test/e2e/http/consent/request.test.ts', 'the request token is not a bearer token'],
      ['test/e2e/http/consent/request.test.ts', 'an exchange before approval is invalid_grant'],
    ],
  },
  {
    id: 'consent-v2.decisions',
    source: 'WIRE-NOTES §2.2',
    rule: 'only the subject decides; a grant token never approves; narrowing is enforced on every read',
    tests: [
      ['test/e2e/http/consent/decide.test.ts', 'a grant token presented to approve is 403 access_denied'],
      ['test/e2e/http/consent/decide.test.ts', 'narrowed to one core key: every read returns only that key'],
      ['test/unit/policy/narrowing.test.ts', 'refuses an item that was not requested, in each list'],
    ],
  },
  {
    id: 'consent-v2.exchange',
    source: 'WIRE-NOTES §2.3',
    rule: 'every failed exchange is the same 400 invalid_grant; a request is exchanged at most once',
    tests: [
      ['test/e2e/http/consent/exchange.test.ts', 'the id alone (no request token) is invalid_grant'],
      ['test/e2e/http/consent/exchange.test.ts', 'a replay of a successful exchange is invalid_grant'],
      ['test/e2e/http/consent/exchange.test.ts', 'five concurrent genuine exchanges: exactly one 200'],
    ],
  },
  {
    id: 'consent-v2.refresh-rotation',
    source: 'WIRE-NOTES §2.4',
    rule: 'refresh rotates; a replayed refresh token kills the family and revokes the grant; 410 after revoke',
    tests: [
      [
        'test/e2e/http/consent/refresh.test.ts',
        'a replayed (rotated) refresh token: invalid_grant, the family dies',
      ],
      [
        'test/e2e/http/consent/refresh.test.ts',
        'refresh after the subject revoked the grant is 410 grant_gone',
      ],
      ['test/e2e/http/consent/refresh.test.ts', 'concurrent refreshes of one token: exactly one 200'],
      ['test/e2e/http/consent/refresh-chains.test.ts', 'a spent token of any age is a reuse'],
      ['test/e2e/http/consent/refresh-chains.test.ts', 'a forged token is unknown, whatever it names'],
      [
        'test/e2e/http/consent/refresh-chains.test.ts',
        'a family made before chains rotates its token kept as a row onto a chain',
      ],
    ],
  },
  {
    id: 'oauth.metadata',
    source: 'WIRE-NOTES §3; RFC 8414, RFC 9728',
    rule: 'authorization server and protected resource metadata are exact; 401s name the resource metadata',
    tests: [
      ['test/e2e/oauth/metadata.test.ts', 'authorization server metadata (RFC 8414) is exact'],
      ['test/e2e/oauth/metadata.test.ts', 'a 401 of the HTTP API names the protected resource metadata'],
    ],
  },
  {
    id: 'oauth.mcp-sdk-client',
    source: 'issue 3 (tests that must exist)',
    rule: 'the official MCP SDK client completes discovery, registration, authorization, exchange and refresh',
    tests: [['test/e2e/oauth/mcp-sdk.test.ts', 'discovers, registers, authorizes, exchanges and refreshes']],
  },
  {
    id: 'oauth.audience',
    source: 'RFC 8707; WIRE-NOTES §3',
    rule: 'tokens are bound to their resource; a token for another resource is refused',
    tests: [
      [
        'test/e2e/oauth/flow.test.ts',
        'a token for the MCP resource (the default) is refused by the HTTP API',
      ],
      [
        'test/e2e/http/consent/flow.test.ts',
        'a token minted with the provider key for another resource (audience) is 401',
      ],
    ],
  },
  {
    id: 'oauth.client-metadata-documents',
    source: 'WIRE-NOTES §3',
    rule: 'client ID metadata documents are fetched with SSRF guards and size limits; http only with the dev flag',
    tests: [
      [
        'test/e2e/oauth/authorize.test.ts',
        'without the flag: https only, and never a private or loopback address',
      ],
      [
        'test/e2e/oauth/authorize.test.ts',
        'refuses documents that do not describe the URL, redirects, oversize bodies',
      ],
    ],
  },
  {
    id: 'oauth.revocation-introspection',
    source: 'RFC 7009, RFC 7662; WIRE-NOTES §4',
    rule: 'revocation ends the grant; introspection is authenticated and reports pdpp_token_kind and pdpp_grant_status',
    tests: [
      ['test/e2e/oauth/introspect-revoke.test.ts', 'revoking a refresh token ends the grant, at once'],
      ['test/e2e/oauth/introspect-revoke.test.ts', 'introspection requires authentication'],
      [
        'test/e2e/oauth/packages/operator-package.test.ts',
        'introspection reports the package kind and each child status',
      ],
    ],
  },
  {
    id: 'packages.children',
    source: 'WIRE-NOTES §4',
    rule: 'a package token covers several grants; withdrawing one child leaves the others; disconnect ends all',
    tests: [
      ['test/e2e/oauth/packages/operator-package.test.ts', 'withdrawing one child leaves the others'],
      ['test/e2e/oauth/packages/operator-package.test.ts', 'the disconnect endpoint ends every child'],
      [
        'test/e2e/oauth/packages/operator-package.test.ts',
        'a single-use child is consumed by the first token',
      ],
    ],
  },
  {
    id: 'web.consent-page',
    source: 'issue 3 item 2',
    rule: 'the consent page shows the request in words, marks stated vs inferred, allows narrowing; CSRF and clickjacking are refused',
    tests: [
      [
        'test/e2e/web/consent-browser.browser.test.ts',
        'sign in, read the request in words, untick a namespace, approve',
      ],
      [
        'test/e2e/web/consent-browser.browser.test.ts',
        'a page on another origin cannot frame the consent page',
      ],
      ['test/e2e/web/pages.test.ts', 'a decision without the CSRF token, or from another site, is refused'],
    ],
  },
  {
    id: 'writeback.policies',
    source: 'SPEC §6.2 rule 5, §6.6; WIRE-NOTES §5; issue 4 item 1',
    rule: 'each writeback policy refuses, queues or applies; proposals never overwrite user_stated; bad proposals store nothing',
    tests: [
      ['test/e2e/http/writeback/policies.test.ts', 'forbidden: 403 writeback_forbidden, nothing stored'],
      [
        'test/e2e/http/writeback/policies.test.ts',
        'review_required: 202 proposal_created, invisible to reads until confirmed',
      ],
      ['test/e2e/http/writeback/policies.test.ts', 'auto_for_low_risk: low-risk observed applied'],
      [
        'test/e2e/http/writeback/policies.test.ts',
        'propose-updates: bad proposals name the claim and the problem, nothing stored',
      ],
    ],
  },
  {
    id: 'writeback.confirm-history',
    source: 'SPEC §9 confirm_updates; issue 4 item 2',
    rule: 'confirmation changes later reads and sets last_confirmed_at; history and diff are kept',
    tests: [
      ['test/e2e/http/writeback/confirm.test.ts', 'a confirmation changes what a later read returns'],
      ['test/e2e/http/writeback/confirm.test.ts', 'diff between two instants'],
    ],
  },
  {
    id: 'derived-views.scope',
    source: 'SPEC §4.7, §5.5; WIRE-NOTES §6; issue 4 item 3',
    rule: 'derived views are computed only from claims the grant allows, never carry raw values, and validate',
    tests: [
      [
        'test/e2e/http/derived-views/views.test.ts',
        'recommendation_basis: basis is exactly the allowed keys held',
      ],
      [
        'test/e2e/http/derived-views/views.test.ts',
        'each kind is valid against the official derived-view schema',
      ],
      [
        'test/e2e/http/derived-views/compatibility.test.ts',
        'compares only keys both grants allow and both subjects hold',
      ],
    ],
  },
  {
    id: 'cross-domain.review-mapping',
    source: 'SPEC §6.5, §13.2; issue 4 item 4',
    rule: 'under allow_with_review only mapped core traits cross, after the subject reviews; never raw domain claims',
    tests: [
      [
        'test/e2e/http/cross-domain/policies.test.ts',
        'allow_with_review: pending first, mapped core traits only after approval',
      ],
      [
        'test/e2e/http/cross-domain/policies.test.ts',
        'deny: fragrance claims omitted, no mapped trait, no review created',
      ],
    ],
  },
  {
    id: 'one-time-grants',
    source: 'SPEC §13.3; issue 4 item 5',
    rule: 'one-time grants end after the session and never export',
    tests: [['test/e2e/http/derived-views/single-use.test.ts', 'works until its token expires, then 401']],
  },
  {
    id: 'deletion-export',
    source: 'SPEC §10 MUST 6; issue 4 item 7',
    rule: 'export round-trips through import; deleted claims are read by no grant and leave the export',
    tests: [
      [
        'test/e2e/http/writeback/delete-export.test.ts',
        'export -> delete the profile -> import restores it exactly',
      ],
      ['test/e2e/http/writeback/delete-export.test.ts', 'deletes one claim: gone from reads and exports'],
    ],
  },
  {
    id: 'mcp.auth',
    source: 'bindings/mcp.md; WIRE-NOTES §5 rows 1–2; issue 5 item 1',
    rule: 'bearer auth on every /mcp request; 401 with resource_metadata; other audiences and owner tokens refused; revocation on the next call',
    tests: [
      [
        'test/e2e/mcp/auth.test.ts',
        'answers a request without a token with a bare challenge naming the resource metadata',
      ],
      ['test/e2e/mcp/auth.test.ts', 'refuses a grant token minted for the HTTP API audience'],
      ['test/e2e/mcp/auth.test.ts', 'refuses owner tokens, for either audience'],
      ['test/e2e/mcp/auth.test.ts', 'revocation takes effect on the very next call'],
      [
        'test/e2e/mcp/auth.test.ts',
        'refuses a browser Origin other than the provider’s own, before authentication',
      ],
    ],
  },
  {
    id: 'mcp.tools',
    source: 'bindings/mcp.md; WIRE-NOTES §5; issue 5 item 2',
    rule: 'the eight PPX tools and child discovery with titles, annotations and JSON Schema 2020-12 schemas; results valid against them and the official schemas; the same claims as HTTP',
    tests: [
      [
        'test/e2e/mcp/tools.test.ts',
        'lists the nine tools with titles, annotations and 2020-12 schemas, under the byte budget',
      ],
      [
        'test/e2e/mcp/tools.test.ts',
        'every read tool answers with data valid against its output and the official schema',
      ],
      ['test/e2e/mcp/parity.test.ts', 'equals the HTTP answer for 20 random grants and contexts'],
      [
        'test/e2e/mcp/scope.test.ts',
        'resources: templates, the pairwise summary and effective views, under the same scope',
      ],
    ],
  },
  {
    id: 'mcp.error-table',
    source: 'WIRE-NOTES §5 error table; issue 5 item 4',
    rule: 'scope → 403 insufficient_scope (single grant) or isError (package); cross-domain likewise; forbidden write-back → 403 writeback_forbidden; no trigger words in texts',
    tests: [
      ['test/e2e/mcp/scope.test.ts', 'an operation outside the grant is 403 insufficient_scope'],
      [
        'test/e2e/mcp/scope.test.ts',
        'another domain is 403 cross_domain_denied; writeback forbidden is 403 writeback_forbidden',
      ],
      [
        'test/e2e/mcp/packages/inactive.test.ts',
        'an operation or purpose outside the named child is isError insufficient_scope, not 403',
      ],
      [
        'test/e2e/mcp/packages/inactive.test.ts',
        'a cross-domain read under the named child is isError cross_domain_denied, not 403',
      ],
      [
        'test/e2e/mcp/packages/inactive.test.ts',
        'a write-back the named child forbids is 403 writeback_forbidden',
      ],
      ['test/e2e/mcp/packages/inactive.test.ts', 'tool error texts avoid the trigger words, codes included'],
    ],
  },
  {
    id: 'mcp.grant-id',
    source: 'PDPP MCP read profile §3; WIRE-NOTES §4 (child grammar); issue 5 item 3',
    rule: 'with a package token grant_id is required; missing, malformed, repeated or unknown is isError before any read, even for one child',
    tests: [
      [
        'test/e2e/mcp/packages/grant-id.test.ts',
        'every data-disclosing tool requires grant_id, even with a one-child package',
      ],
      ['test/e2e/mcp/packages/grant-id.test.ts', 'a malformed grant_id is refused before any read'],
      ['test/e2e/mcp/packages/grant-id.test.ts', 'a repeated grant_id is refused before any read'],
      ['test/e2e/mcp/packages/grant-id.test.ts', 'an unknown grant_id'],
      [
        'test/e2e/mcp/packages/grant-id.test.ts',
        'with a single-grant token grant_id stays optional and must match',
      ],
      [
        'test/e2e/mcp/packages/grant-id.test.ts',
        'a child id names the child; its PPX grant id is accepted as the same name',
      ],
    ],
  },
  {
    id: 'mcp.fan-out',
    source: 'PDPP MCP read profile §3 (fan-out); WIRE-NOTES §5',
    rule: 'one entry per named child, computed under that child only; isError only when every entry failed',
    tests: [
      [
        'test/e2e/mcp/packages/fan-out.test.ts',
        'one entry per named child, each computed under its own grant only',
      ],
      [
        'test/e2e/mcp/packages/fan-out.test.ts',
        'mixed success: isError is false, the failed child has an error entry',
      ],
      [
        'test/e2e/mcp/packages/fan-out.test.ts',
        'every entry failed: isError is true, with the ended-access text',
      ],
      ['test/e2e/mcp/packages/fan-out.test.ts', 'a one-element list is still a fan-out'],
    ],
  },
  {
    id: 'mcp.inactive-child',
    source: 'PDPP MCP read profile §3 (inactive children); WIRE-NOTES §5',
    rule: 'an ended child is a package_child_inactive tool result, never HTTP 401/403 and never another child; no active child left is HTTP 401 invalid_token',
    tests: [
      [
        'test/e2e/mcp/packages/inactive.test.ts',
        'gives package_child_inactive, as a tool result, for every tool',
      ],
      ['test/e2e/mcp/packages/inactive.test.ts', 'the active child still reads'],
      [
        'test/e2e/mcp/packages/lifecycle.test.ts',
        'no active child left: HTTP 401 invalid_token with the resource metadata',
      ],
    ],
  },
  {
    id: 'mcp.discovery',
    source: 'PDPP MCP read profile §3 (child discovery)',
    rule: 'ppx_list_granted_access lists each child (grant_id, source, purposes, permissions, streams with pairwise instance_ids, access mode, status), nothing else, and reflects a revocation on the next call',
    tests: [
      [
        'test/e2e/mcp/packages/discovery.test.ts',
        'lists every child with its source, purposes, permissions, streams, pairwise handles, mode and status',
      ],
      ['test/e2e/mcp/packages/discovery.test.ts', 'reflects a revocation on the very next call'],
      ['test/e2e/mcp/packages/discovery.test.ts', 'takes no grant_id'],
    ],
  },
  {
    id: 'mcp.presentation',
    source: 'PDPP MCP read profile §3 (instance_id, freshness); WIRE-NOTES §4',
    rule: 'every claim id in a result has its instance_id beside it; freshness per namespace at structuredContent.data.freshness, granularity declared',
    tests: [
      ['test/e2e/mcp/packages/presentation.test.ts', 'each claim id has its pairwise instance_id beside it'],
      [
        'test/e2e/mcp/packages/presentation.test.ts',
        'freshness: per stream and instance, last_success_at = when claims there last changed',
      ],
      [
        'test/e2e/mcp/packages/presentation.test.ts',
        'the protected resource metadata declares the freshness granularity',
      ],
      ['test/e2e/mcp/tools.test.ts', 'proposes (queued for review) and confirms an update under the grant'],
    ],
  },
  {
    id: 'mcp.pairwise-only',
    source: 'PDPP MCP read profile §3; WIRE-NOTES §5',
    rule: 'no tool list, instruction, result or error carries a non-pairwise subject id',
    tests: [
      [
        'test/e2e/mcp/packages/lifecycle.test.ts',
        'no grantee-visible output carries the internal subject id',
      ],
    ],
  },
  {
    id: 'mcp.reuse-never-leaks',
    source: 'DEVELOPERS guide (consent is the product); docs/benchmarks.md (reuse between requests)',
    rule: 'work reused between requests never crosses callers, versions or revocations; a change outside the grant shows nothing',
    tests: [
      ['test/e2e/mcp/shared-reads.test.ts', 'keeps each concurrent caller in its own grant, ids and scope'],
      [
        'test/e2e/mcp/shared-reads.test.ts',
        'shows a deletion on the very next read, even within the same second',
      ],
      ['test/e2e/mcp/shared-reads.test.ts', 'shows nothing of a write outside the grant'],
      [
        'test/e2e/mcp/shared-reads.test.ts',
        'refuses the next read after a revocation, with the previous answer still cached',
      ],
    ],
  },
  {
    id: 'agui.state-delta-json-patch',
    source: 'bindings/ag-ui.md "State snapshot shape"; WIRE-NOTES §7',
    rule: 'every STATE_DELTA is RFC 6902 relative to the last state sent: applying them all gives exactly a fresh snapshot',
    tests: [
      ['test/e2e/agui/live.test.ts', 'the AG-UI review stream follows changes made on every surface'],
      ['test/e2e/agui/runs.test.ts', 'resuming from `since` gets what changed while disconnected'],
    ],
  },
  {
    id: 'agui.subject-only',
    source: 'WIRE-NOTES §7; issue 12 item 1',
    rule: "the review stream is the subject's own: a grant or package token is refused, and another subject's changes never appear",
    tests: [
      ['test/e2e/agui/runs.test.ts', 'only the subject: a grant token is 403'],
      ['test/e2e/agui/runs.test.ts', "another subject's changes never reach a person's stream"],
      ['test/e2e/agui/session.test.ts', 'a session from signing in opens a run'],
      ['test/e2e/agui/session.test.ts', 'a cross-site request on the session is refused'],
    ],
  },
  {
    id: 'agui.run-shape',
    source: 'WIRE-NOTES §7; ../shared/design/PITFALLS.md (AG-UI 1.0.0)',
    rule: 'RUN_STARTED first, STATE_SNAPSHOT, then deltas; one-shot runs end with RUN_FINISHED; a following run sends a comment at least every 15 s',
    tests: [
      ['test/e2e/agui/runs.test.ts', 'a one-shot run: RUN_STARTED, STATE_SNAPSHOT'],
      ['test/e2e/agui/live.test.ts', 'the runs so far obey AG-UI'],
      ['test/e2e/agui/stream.test.ts', 'writes a comment line every interval while nothing changes'],
    ],
  },
  {
    id: 'agui.consent-interrupt',
    source: 'WIRE-NOTES §7; ../shared/design/PITFALLS.md (AG-UI 1.0.0)',
    rule: 'a pending consent request ends a run with CUSTOM INTERRUPT then the interrupt outcome; resume approves, narrows or rejects through the consent operations; a bad resume is RUN_ERROR with nothing applied',
    tests: [
      ['test/e2e/agui/interrupts.test.ts', 'a pending consent request ends the run'],
      ['test/e2e/agui/interrupts.test.ts', 'resumed with approve'],
      ['test/e2e/agui/interrupts.test.ts', 'resumed with edit'],
      ['test/e2e/agui/interrupts.test.ts', 'resumed with reject'],
      ['test/e2e/agui/interrupts.test.ts', 'bad answers are RUN_ERROR with nothing applied'],
    ],
  },
  {
    id: 'agui.person-actions',
    source: 'issue 12 item 1; WIRE-NOTES §7; bindings/ag-ui.md',
    rule: 'each approve, reject, revoke, confirm and edit the person makes is TOOL_CALL_START/ARGS/END/RESULT of the catalog operation of that name, the state after it follows; bad actions apply nothing; explanations are TEXT_MESSAGE_*',
    tests: [
      ['test/e2e/agui/actions.test.ts', 'confirm: TOOL_CALL_START/ARGS/END/RESULT'],
      ['test/e2e/agui/actions.test.ts', 'revoke: the grant leaves the state'],
      ['test/e2e/agui/actions.test.ts', 'bad actions are RUN_ERROR naming what is wrong'],
      ['test/e2e/agui/actions.test.ts', 'explanations in words'],
      ['test/e2e/agui/actions.test.ts', 'a resume’s consent decision is reported as the tool call it made'],
    ],
  },
  {
    id: 'a2a.card',
    source: 'issue 13 item 1; WIRE-NOTES §6; bindings/a2a.md',
    rule: 'a signed A2A 1.0 agent card the SDK client parses with its security schemes, skills from the catalog; the PPX card points at it',
    tests: [['test/e2e/a2a/skills.test.ts', 'serves a signed A2A 1.0 card the SDK client parses']],
  },
  {
    id: 'a2a.grant-bound',
    source: 'issue 13 item 3; bindings/a2a.md "Authentication"',
    rule: 'every call bears a token for BASE/a2a bound to one grant: 401 with a challenge otherwise, 403 for what the grant refuses before the params; revocation fails the next call and ends a stream',
    tests: [
      [
        'test/e2e/a2a/skills.test.ts',
        'a grant without the operation or the purpose is refused at the HTTP level',
      ],
      ['test/e2e/a2a/skills.test.ts', 'a revoked grant fails the very next call'],
      ['test/e2e/a2a/skills.test.ts', 'tokens for other resources, owner tokens and no token are 401'],
      ['test/unit/surfaces/a2a/stream-guard.test.ts', 'ends with a failed status once it is revoked'],
    ],
  },
  {
    id: 'a2a.tasks-own-only',
    source: 'issue 13 item 2',
    rule: "tasks persist in the store, owned by their grant: another grant's task is not found exactly as a missing one, ListTasks lists one's own; a task does not outlive its use",
    tests: [
      ['test/e2e/a2a/tasks.test.ts', 'another grant’s task is not found, like a missing one'],
      ['test/e2e/a2a/tasks.test.ts', 'ListTasks shows a grantee its own tasks only'],
      ['test/e2e/a2a/tasks.test.ts', 'without its result, marked result_expired'],
      ['test/e2e/a2a/tasks.test.ts', 'at once when the person deletes claims'],
    ],
  },
  {
    id: 'a2a.same-operations',
    source: 'issue 13 items 2 and 4; WIRE-NOTES §6',
    rule: 'A2A, MCP and HTTP give the same claims under the same grant; derived views never raw claims; a counterpart grant of another client is not found like a missing one',
    tests: [
      ['test/e2e/a2a/views.test.ts', 'parity: A2A, MCP and HTTP give the same claims'],
      [
        'test/e2e/a2a/views.test.ts',
        'a counterpart grant held by another client is refused exactly like one that does not exist',
      ],
    ],
  },
  {
    id: 'a2a.wire',
    source: 'issue 13 items 2 and "Bad input"',
    rule: 'the literal binding form, the 0.3 names and bad input with the standard JSON-RPC codes, never a 500',
    tests: [
      ['test/e2e/a2a/wire.test.ts', 'the literal form'],
      ['test/e2e/a2a/wire.test.ts', 'A2A 0.3 names on the same endpoint'],
      ['test/e2e/a2a/wire.test.ts', 'bad input gets the standard JSON-RPC codes'],
    ],
  },
  {
    id: 'app.session-and-landing',
    source: 'issue 12 item 3',
    rule: "the web app at /app is the signed-in person's own: without a session, sign in and come back; a plain sign-in lands there; the consent page links to it",
    tests: [
      [
        'test/e2e/web/app/serving.test.ts',
        'without a session, /app and its views send the person to sign in',
      ],
      ['test/e2e/web/app/serving.test.ts', 'a plain sign-in lands on /app'],
      ['test/e2e/web/app/serving.test.ts', 'the consent page and the signed-in page link to the app'],
      ['test/e2e/web/app/app.browser.test.ts', 'signing in from /app lands on the app'],
    ],
  },
  {
    id: 'app.own-build',
    source: 'issue 12 item 3',
    rule: "built by the project's own build, served by the provider under a CSP of its own origin, nothing from a CDN or fetched at run time; without a bundle, a page in words",
    tests: [
      ['test/e2e/web/app/serving.test.ts', 'the page: the bundle, the CSRF token'],
      ['test/e2e/web/app/serving.test.ts', 'the built files: long cache lifetimes'],
      ['test/e2e/web/app/serving.test.ts', 'without a built bundle, /app says so in words'],
    ],
  },
  {
    id: 'app.live',
    source: 'issue 12 item 3',
    rule: 'what another surface changes shows on the open page without a reload, and a dropped stream resumes without a gap',
    tests: [
      [
        'test/e2e/web/app/app.browser.test.ts',
        'a proposal an agent makes over MCP while the page is open appears without reload',
      ],
      ['test/e2e/web/app/app.browser.test.ts', 'a consent request appears without reload'],
      ['test/e2e/web/app/reconnect.browser.test.ts', 'the next run resumes from the state’s seq'],
    ],
  },
  {
    id: 'app.decisions',
    source: 'issue 12 items 1 and 3; WIRE-NOTES §7',
    rule: "the person's decisions on the page go through the same operations as everywhere: a narrowed approval is exactly what was kept, a revoked grant's token fails on its next read",
    tests: [
      ['test/e2e/web/app/app.browser.test.ts', 'approved narrowed, the grant is exactly what was kept'],
      ['test/e2e/web/app/app.browser.test.ts', 'the app’s next read with its token fails'],
      ['test/e2e/web/app/app.browser.test.ts', 'export downloads a file'],
      ['test/e2e/web/app/app.browser.test.ts', 'deleting the whole profile takes a confirmation'],
    ],
  },
  {
    id: 'app.a-persons-page',
    source: 'issue 12 item 5',
    rule: 'plain words, errors in words, usable by keyboard alone, readable at 390 px without sideways scrolling, no serious or critical axe-core violation',
    tests: [
      ['test/e2e/web/app/app.browser.test.ts', 'which shows the profile by area in words'],
      ['test/e2e/web/app/app.browser.test.ts', 'offline, an action says so in words'],
      ['test/e2e/web/app/layout.browser.test.ts', 'keyboard only: Tab to a grant’s revoke button'],
      [
        'test/e2e/web/app/layout.browser.test.ts',
        'every view at 1280×800 and 390×844: no serious or critical axe-core violation, no sideways scrolling',
      ],
    ],
  },
  {
    id: 'hardening.redaction-property',
    source: 'issue 15 item 1; SPEC §6.2 rule 3, bindings/http.md',
    rule: 'for random profiles, grants and call sequences on HTTP, MCP (and packages), A2A and AG-UI, on both stores: every claim named is inside the grant, nothing of another subject appears, and every answer is the same whether a hidden claim exists or not',
    tests: [
      ['test/props/redaction.test.ts', 'holds on 60 random profiles, grants and call sequences'],
      ['test/props/redaction.test.ts', 'redaction property on PostgreSQL'],
    ],
  },
  {
    id: 'hardening.consent-attacks',
    source: 'issue 15 item 3',
    rule: 'CSRF on every cookie route refused; no open redirect; impostor clients marked; injected markup stays text; no SSRF through client metadata URLs; secrets stored as hashes and compared in constant time; sign-in and token endpoints rate limited',
    tests: [
      [
        'test/e2e/attacks/csrf.browser.test.ts',
        'the route table has no cookie-carried state-changing route this file does not attack',
      ],
      ['test/e2e/attacks/csrf.browser.test.ts', 'cannot decide a consent request'],
      ['test/e2e/attacks/redirects.browser.test.ts', 'is shown, not followed'],
      ['test/e2e/attacks/redirects.browser.test.ts', 'a redirect URI deregistered after the request'],
      ['test/e2e/attacks/impersonation.browser.test.ts', 'an app naming itself exactly like the real one'],
      ['test/e2e/attacks/html-injection.browser.test.ts', 'the web app, every view: no injected element'],
      [
        'test/e2e/attacks/ssrf.test.ts',
        'every spelling of this machine is refused with its reason, and no connection arrives',
      ],
      ['test/e2e/attacks/secrets.test.ts', 'no table, column or row holds a plaintext secret'],
      ['test/e2e/attacks/secrets.test.ts', 'static check: the comparers use timingSafeEqual'],
      ['test/e2e/attacks/secrets.test.ts', 'sign-in: 20 wrong passwords, then 429 with Retry-After'],
    ],
  },
  {
    id: 'hardening.fuzzing',
    source: 'issue 15 item 2',
    rule: 'malformed, oversized, deeply nested, invalid UTF-8 and forged inputs on every entry point: no 5xx, no crash, memory bounded',
    tests: [
      ['test/fuzz/fuzz.test.ts', 'tries every input, on every entry point, with every generator'],
      ['test/fuzz/fuzz.test.ts', 'answers no input with a 5xx'],
      ['test/fuzz/fuzz.test.ts', 'its memory is bounded'],
    ],
  },
  {
    id: 'hardening.crash-safety',
    source: 'issue 15 items 4 and 5',
    rule: 'SIGKILL under concurrent writes loses nothing acknowledged on either store (no revoked grant active, no half-rotated family, no lost change event); SIGTERM answers every request in flight',
    tests: [
      ['test/crash/crash.test.ts', 'crash safety on SQLite'],
      ['test/crash/crash.test.ts', 'rounds of SIGKILL under load lose nothing acknowledged'],
      ['test/cli/serve-lifecycle.test.ts', 'on SIGTERM answers every request in flight, on every surface'],
    ],
  },
  // Issue 22: what trying to break it found. One entry per item, each tied to the test that
  // failed before its fix.
  {
    id: 'issue22.13-refresh-reuse-deterministic',
    source: 'issue 22 item 13; WIRE-NOTES §2.4; RFC 9700 §4.14.2',
    rule: 'presenting a spent refresh token ends its family deterministically, a concurrent race included, on both stores and across instances',
    tests: [
      [
        'test/e2e/instances/refresh-races.test.ts',
        'races of 10 refreshes: one winner, and the family always ends',
      ],
      ['test/e2e/instances/refresh-races.test.ts', 'races of 10 refreshes spread over both'],
      ['test/e2e/http/consent/refresh.test.ts', 'concurrent refreshes of one token: exactly one 200'],
    ],
  },
  {
    id: 'issue22.16-ended-access-words',
    source: 'issue 22 item 16',
    rule: 'a refresh after the access ended says who ended it (the person, the app itself, reuse detection) or that it expired',
    tests: [
      ['test/e2e/oauth/mcp-sdk.test.ts', 'after the person ends its access, the refresh says so'],
      [
        'test/e2e/http/consent/refresh.test.ts',
        'a refresh after the client gave up its own grant says the app ended it',
      ],
      ['test/e2e/http/consent/refresh.test.ts', 'says the access expired, in words'],
      ['test/e2e/oauth/introspect-revoke.test.ts', 'revoking a refresh token ends the grant, at once'],
    ],
  },
  {
    id: 'issue22.17-database-url-words',
    source: 'issue 22 item 17',
    rule: 'a PostgreSQL URL the provider cannot use is said in words naming the problem, exit 1, never a stack',
    tests: [
      [
        'test/cli/database-url.test.ts',
        'no user in the URL and none in the environment: serve names the missing part',
      ],
      ['test/cli/database-url.test.ts', 'nothing answering at the host and port'],
      ['test/cli/database-url.test.ts', 'an unknown role'],
    ],
  },
  // issue 22 · a2a (items 1, 5, 11)
  {
    id: 'issue22.1-deletion-reach',
    source: 'issue 22 item 1',
    rule: 'a deletion removes exactly the stored A2A tasks of the grants that could see what was deleted; a grant that could not see it notices nothing',
    tests: [
      [
        'test/e2e/a2a/deletion.test.ts',
        'deleting a claim or an area outside the grant leaves its tasks as they were; deleting one inside removes them',
      ],
      [
        'test/e2e/a2a/deletion.test.ts',
        'a grant of another area keeps its tasks when a claim it could not see goes; the grant that could see it loses its own',
      ],
      [
        'test/e2e/a2a/deletion.test.ts',
        'deleting the whole profile removes every task of the person’s grants',
      ],
      [
        'test/e2e/a2a/deletion.test.ts',
        'importing over the profile (import --replace) removes every task of the person’s grants',
      ],
      [
        'test/e2e/a2a/deletion.test.ts',
        'a counterpart’s deletion removes the completed views that drew on a grant that could see it, and no others',
      ],
      [
        'test/store/contract-a2a-tasks.ts',
        'keeps a task’s counterpart grant, and deletes the tasks of any owner that drew on one (issue 22 item 1)',
      ],
      [
        'test/unit/policy/deletion-reach.test.ts',
        'a modifier reaches the grant when it changes a claim the grant could read',
      ],
    ],
  },
  {
    id: 'issue22.5-card-signed-as-read',
    source: 'issue 22 item 5',
    rule: 'each version of the agent card holds nothing outside its signature: a 0.3 card whose url was changed fails the SDK’s own verifier',
    tests: [
      ['test/e2e/a2a/card.test.ts', 'the 1.0 card holds nothing outside its signature'],
      [
        'test/e2e/a2a/card.test.ts',
        'the 0.3 card (no A2A-Version): the SDK’s verifier accepts it, and refuses it once its url is changed',
      ],
      [
        'test/e2e/a2a/card.test.ts',
        'the 0.3 card also carries a signature over its own RFC 8785 form, which a changed url breaks',
      ],
    ],
  },
  {
    id: 'issue22.11-task-size',
    source: 'issue 22 item 11',
    rule: 'an A2A task is stored with the PPX result only (A2UI drawn again on read), ListTasks gives artifacts only when asked, and one grant keeps at most 100 tasks and 2 MiB',
    tests: [
      [
        'test/e2e/a2a/task-size.test.ts',
        'a task is stored with the PPX result only; its A2UI parts are drawn again when read with the extension',
      ],
      [
        'test/e2e/a2a/task-size.test.ts',
        'ListTasks gives artifacts only when asked to include them (A2A ListTasksRequest.includeArtifacts)',
      ],
      [
        'test/e2e/a2a/task-size.test.ts',
        'what one grant keeps stays under the cap: the oldest tasks go first, the newest is always there',
      ],
      ['test/e2e/a2a/task-size.test.ts', 'at most TASK_CAP_COUNT tasks per grant, however small'],
      [
        'test/store/contract-a2a-tasks.ts',
        'trims one owner to a cap of tasks and of body bytes, oldest first, never the task it keeps (issue 22 item 11)',
      ],
    ],
  },
  // issue 22 · streams (items 8, 9)
  {
    id: 'issue22.8-slow-readers-bounded',
    source: 'issue 22 item 8',
    rule: 'every stream holds a bounded amount unread (4 MiB, or one larger event), a stream further behind is cut, A2A task streams per grant are capped, MCP streams only the change notices of a grant, counted and released with the reader, and memory under a slow-reader attack stays within the stated bound',
    tests: [
      [
        'test/e2e/agui/slow-readers.test.ts',
        '16 runs that never read: each is cut once it falls behind, and memory stays within the stated bound',
      ],
      [
        'test/e2e/a2a/slow-readers.test.ts',
        '40 streams never read: at most MAX_STREAMS_PER_GRANT are held, the rest refused, and memory stays within the bound',
      ],
      [
        'test/e2e/mcp/no-streams.test.ts',
        'a call offering to read SSE is answered with one JSON body; GET is a counted notice stream',
      ],
      [
        'test/unit/surfaces/shared/bounded-stream.test.ts',
        'queues up to the limit unread, and the write past it cuts the stream (erroring it, no response)',
      ],
      [
        'test/unit/surfaces/shared/bounded-stream.test.ts',
        'a reader that keeps up is never cut, and one event larger than the bound still goes to it',
      ],
      [
        'test/unit/surfaces/shared/bounded-stream.test.ts',
        "counts the response's unread bytes, destroys the response when cut, and is flushed only once they left",
      ],
    ],
  },
  {
    id: 'issue22.9-stream-credential',
    source: 'issue 22 item 9',
    rule: "an open stream checks its credential again before each event with the person's data (session after sign-out, expired or revoked token, ended grant) and ends when it is gone",
    tests: [
      [
        'test/e2e/agui/stream-credential.test.ts',
        'signing out ends a run on the session: the next change brings RUN_ERROR, no STATE_DELTA',
      ],
      [
        'test/e2e/agui/stream-credential.test.ts',
        'a subject token that has expired ends its run the same way',
      ],
      ['test/e2e/agui/stream-credential.test.ts', 'a run on a token still valid goes on'],
      [
        'test/unit/surfaces/a2a/stream-guard.test.ts',
        'passes events while the grant is active, then ends with a failed status once it is revoked',
      ],
    ],
  },
  // issue 22 · words (items 2, 6, 7)
  {
    id: 'issue22.2-person-owned-fields',
    source: 'issue 22 item 2',
    rule: 'a grantee can neither set nor claim the person-owned fields: hiding or locking a claim is 400, its confirmation date is dropped, its "the person said this" is kept as imported from it and queued; a grant never confirms what the person stated',
    tests: [
      [
        'test/e2e/http/writeback/person-owned.test.ts',
        'a grantee cannot hide a claim from the person or lock it: 400 invalid_request, nothing stored',
      ],
      [
        'test/e2e/http/writeback/person-owned.test.ts',
        'a grantee’s last_confirmed_at is dropped: the person never confirmed it',
      ],
      [
        'test/e2e/http/writeback/person-owned.test.ts',
        'a grantee’s "the person said this" is kept as imported from it, and always waits for the person',
      ],
      [
        'test/e2e/http/writeback/person-owned.test.ts',
        'a grant’s confirm_update never reaches what the person said: 403 access_denied',
      ],
      [
        'test/e2e/http/writeback/person-owned.test.ts',
        'the same refusal over MCP and A2A (the same operation)',
      ],
      [
        'test/unit/operations/writeback/person-owned.property.test.ts',
        'a grantee write never ends with a person-owned field set by the grantee',
      ],
    ],
  },
  {
    id: 'issue22.6-suggestion-shows-what-it-replaces',
    source: 'issue 22 item 6',
    rule: 'a suggestion shows what it would replace (now → suggested, as a ProfileDiffView row), warns over the person’s own words, and several for one key are one card with the current value once',
    tests: [
      [
        'test/e2e/web/app/own-words.browser.test.ts',
        'suggestions for one preference: one card, what it says now once, each as now → suggested; accepting one leaves the rest',
      ],
      [
        'test/unit/surfaces/shared/a2ui/components.test.ts',
        'shows what it says now once, then each suggestion as now → suggested, and warns over the person’s own words',
      ],
      [
        'test/unit/surfaces/shared/a2ui/components.test.ts',
        'a suggestion for a preference not stored says so, and its slider sends the position',
      ],
    ],
  },
  {
    id: 'issue22.7-same-value-confirms',
    source: 'issue 22 item 7',
    rule: '"Change it" without a new value, and the subject’s write of what is stored, confirm: provenance and confidence unchanged, last_confirmed_at set, and the page says it was confirmed',
    tests: [
      [
        'test/e2e/web/app/own-words.browser.test.ts',
        '"Change it" with the slider not moved confirms: where it came from and how sure stay, and it says so',
      ],
      [
        'test/e2e/http/writeback/subject-confirms.test.ts',
        'is a confirmation: provenance and confidence unchanged, last_confirmed_at set, history says confirmed',
      ],
      [
        'test/e2e/http/writeback/subject-confirms.test.ts',
        'a different value is the person’s own: said by them',
      ],
      [
        'test/unit/policy/writeback-only-confirms.test.ts',
        'the same value with other provenance, confidence or review only confirms',
      ],
    ],
  },
  // issue 22 · trust (items 3, 4, 14, 15)
  {
    id: 'issue22.3-write-power-words',
    source: 'issue 22 item 3',
    rule: 'every place that describes a grant (grant cards, "Explain this", the consent page and its A2UI form) says what its write-back policy lets the app do, from one function made from the rules the write-back follows',
    tests: [
      [
        'test/e2e/web/app/what-apps-may-do.browser.test.ts',
        'each grant card, and its explanation, says what its write-back policy lets the app do',
      ],
      [
        'test/e2e/web/app/what-apps-may-do.browser.test.ts',
        'the consent page says what write-back "allow" lets the app do',
      ],
      [
        'test/e2e/agui/explanations.test.ts',
        'a grant under write-back "allow" is explained as exactly what it lets the app do',
      ],
      [
        'test/e2e/agui/explanations.test.ts',
        'a grant that may confirm updates is told as changing the profile without asking',
      ],
      [
        'test/unit/surfaces/shared/writeback-words.test.ts',
        '"auto_for_low_risk": the words match what decideWriteback does',
      ],
    ],
  },
  {
    id: 'issue22.4-impostor-apps-show-host',
    source: 'issue 22 item 4',
    rule: "an app the operator did not register shows its host beside its name wherever it is named; vouching compares the whole origin (scheme, host, port) with the operator's",
    tests: [
      [
        'test/e2e/attacks/impostor-origin.test.ts',
        'a document on a stranger’s host is not vouched for, and carries its host',
      ],
      [
        'test/e2e/attacks/impostor-origin.test.ts',
        'the same host on another port, or over http, is another origin: not vouched',
      ],
      [
        'test/e2e/attacks/impostor-origin.test.ts',
        'the consent page and the sign-in page name the stranger’s document with its host',
      ],
      [
        'test/e2e/web/app/what-apps-may-do.browser.test.ts',
        'an impostor’s suggestion, grant card and explanation read with its host',
      ],
      [
        'test/e2e/web/client-standing.test.ts',
        'a metadata document on the redirect’s host but another port or scheme is not its own site',
      ],
    ],
  },
  {
    id: 'issue22.14-bidi-controls-out',
    source: 'issue 22 item 14',
    rule: 'bidi embedding, override, isolate and mark characters in outside text (values, map keys, domains, names) are taken out wherever it is drawn, by one definition',
    tests: [
      [
        'test/e2e/web/app/what-apps-may-do.browser.test.ts',
        'outside text (values, map keys, domains) draws without bidi controls',
      ],
      [
        'test/e2e/agui/explanations.test.ts',
        'outside text in values and domains is explained without bidi controls',
      ],
      [
        'test/unit/model/shown-text.test.ts',
        'is what escapeHtml, A2UI text, value words and client names use',
      ],
    ],
  },
  {
    id: 'issue22.15-explanations-name-apps',
    source: 'issue 22 item 15',
    rule: '"Explain this" names apps as the pages do, never by client id, and gives the provider\'s reason for queuing as the person\'s own rule',
    tests: [
      [
        'test/e2e/agui/explanations.test.ts',
        'a suggestion names its app, and says it waits because the person asked to review every change',
      ],
      [
        'test/e2e/agui/explanations.test.ts',
        'an app that registered itself is named with its host, never by its dcr_ client id',
      ],
      [
        'test/unit/surfaces/shared/writeback-words.test.ts',
        'has words for every reason the policy gives, none of them spec words',
      ],
    ],
  },
  // issue 22 · spam (items 10, 12)
  {
    id: 'issue22.10-pending-request-caps',
    source: 'issue 22 item 10',
    rule: 'live pending consent requests are capped per app and per person (429 with Retry-After and words, the same for an unknown subject; on OAuth the app’s oldest is withdrawn, past the person cap temporarily_unavailable), expire after 15 minutes, and are neither listed, counted nor drawn once expired',
    tests: [
      [
        'test/e2e/http/consent/pending-caps.test.ts',
        '500 requests for one person in a burst: at most the cap stay pending',
      ],
      ['test/e2e/http/consent/pending-caps.test.ts', 'past the per-person cap, other apps are refused too'],
      ['test/e2e/http/consent/pending-caps.test.ts', 'a subject that does not exist gets the same answers'],
      [
        'test/e2e/http/consent/pending-caps.test.ts',
        'a request older than 15 minutes is neither listed nor counted',
      ],
      [
        'test/e2e/oauth/pending-caps.test.ts',
        'past the per-app cap the app’s oldest pending request is withdrawn',
      ],
      ['test/e2e/oauth/pending-caps.test.ts', 'past the per-person cap the app gets temporarily_unavailable'],
      [
        'test/e2e/web/app/request-spam.browser.test.ts',
        '500 requests in a burst: the page draws at most the cap of forms',
      ],
      [
        'test/e2e/web/app/request-spam.browser.test.ts',
        'a request left unanswered for 15 minutes leaves the page',
      ],
      ['test/store/contract-consent.ts', 'lists a subject’s requests that are pending and live at now'],
      ['test/store/contract-consent.ts', 'pruneGrantRequests removes requests expired before the horizon'],
    ],
  },
  {
    id: 'issue22.12-registration-bounds',
    source: 'issue 22 item 12',
    rule: 'open registration is bounded (body, redirect URIs, every field; RFC 7591 error codes in words) and self-registered clients unused for 24 hours are pruned; 1,000 of the largest registrations stay within a stated number of bytes',
    tests: [
      ['test/e2e/oauth/register-bounds.test.ts', '1,000 of the largest registrations: the oversized refused'],
      ['test/e2e/oauth/register-bounds.test.ts', 'refuses a body over'],
      ['test/store/contract-consent.ts', 'pruneUnusedClients removes old self-registered clients'],
    ],
  },
];
