// An app (OAuth client) known to the provider.

export interface ClientRecord {
  readonly client_id: string;
  readonly name: string;
  readonly redirect_uris: readonly string[];
  readonly kind: 'public' | 'confidential';
  /** SHA-256 (base64url) of the client secret, for confidential clients. */
  readonly secret_hash?: string;
  readonly created_at: string;
  /** How the client came to be known: by the operator, RFC 7591 registration, or a metadata document. */
  readonly source?: 'operator' | 'dynamic' | 'metadata_document';
  /** The client metadata as registered (RFC 7591 §2), for clients that registered themselves. */
  readonly metadata?: Record<string, unknown>;
}
