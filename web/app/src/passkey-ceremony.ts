import { startAuthentication, startRegistration } from '@simplewebauthn/browser';

// The browser side of a passkey ceremony (docs/passkeys.md): ask the provider for options, let the
// browser make or use a passkey, send the answer back. Shared by the sign-in, sign-up and one-time
// link pages (passkey-page.ts) and the web app's "Sign-in and security" view.

/** A refusal in the provider's words, or the browser's when the person cancelled. */
export class PasskeyProblem extends Error {}

async function postJson(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  const value = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const words =
      typeof value['error_description'] === 'string' ? value['error_description'] : 'The request failed.';
    throw new PasskeyProblem(sentence(words));
  }
  return value;
}

function sentence(s: string): string {
  const t = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

function cancelled(e: unknown): PasskeyProblem {
  if (e instanceof PasskeyProblem) return e;
  const name = e instanceof Error ? e.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') {
    return new PasskeyProblem('No passkey was used. Try again when you are ready.');
  }
  return new PasskeyProblem('Your browser could not use a passkey here.');
}

/** Registers a passkey: options from `optionsUrl`, the browser's answer posted to `verifyUrl`. */
export function registerPasskey(
  optionsUrl: string,
  verifyUrl: string,
  fields: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  return ceremony(
    (optionsJSON) => startRegistration({ optionsJSON }),
    optionsUrl,
    verifyUrl,
    fields,
    headers,
  );
}

/** Signs in (or confirms it is the person) with a passkey. */
export function usePasskey(
  optionsUrl: string,
  verifyUrl: string,
  fields: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  return ceremony(
    (optionsJSON) => startAuthentication({ optionsJSON }),
    optionsUrl,
    verifyUrl,
    fields,
    headers,
  );
}

/** Options from the server, the authenticator's answer, the answer back to the server. */
async function ceremony(
  // biome-ignore lint/suspicious/noExplicitAny: the options are the server's JSON, passed through as they are
  ask: (optionsJSON: any) => Promise<unknown>,
  optionsUrl: string,
  verifyUrl: string,
  fields: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Record<string, unknown>> {
  const options = await postJson(optionsUrl, fields, headers);
  let credential: unknown;
  try {
    credential = await ask(options);
  } catch (e) {
    throw cancelled(e);
  }
  return postJson(verifyUrl, { ...fields, credential: JSON.stringify(credential) }, headers);
}
