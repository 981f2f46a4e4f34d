import type { CDPSession, Page } from 'playwright-core';

// Chromium's virtual authenticator (DevTools WebAuthn domain), as a platform passkey that verifies
// its user at once: what every passkey test signs up, signs in and confirms with.

export interface VirtualAuthenticator {
  readonly cdp: CDPSession;
  readonly id: string;
}

export async function virtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}
