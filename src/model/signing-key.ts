// The provider's token signing key as kept in the store (auth/signing-keys.ts).

export interface SigningKeyRecord {
  readonly kid: string;
  readonly alg: string;
  readonly private_jwk: Record<string, unknown>;
  readonly public_jwk: Record<string, unknown>;
  readonly created_at: string;
}
