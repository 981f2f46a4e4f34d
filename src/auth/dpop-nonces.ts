import { createHmac } from 'node:crypto';
import { safeEqual } from './secrets.ts';

// Server-provided DPoP nonces (RFC 9449 §8, §9), without state: a nonce names a time slot and
// carries an HMAC of it under a secret kept in the store (every instance has the same one), so
// any instance can check a nonce any other gave out. A nonce is good in its own slot and the next,
// so a client that fetched one just before a slot ended is not refused at once.

const SLOT_SECONDS = 300;

export class DpopNonces {
  readonly #secret: string;
  constructor(secret: string) {
    this.#secret = secret;
  }

  /** The nonce to hand out now (the `DPoP-Nonce` header). */
  current(now: Date): string {
    return this.#forSlot(slotOf(now));
  }

  /** Whether a proof's nonce is one handed out in this slot or the one before. */
  accepts(nonce: string | undefined, now: Date): boolean {
    if (nonce === undefined || nonce.length > 64) return false;
    const slot = slotOf(now);
    return safeEqual(nonce, this.#forSlot(slot)) || safeEqual(nonce, this.#forSlot(slot - 1));
  }

  #forSlot(slot: number): string {
    const mac = createHmac('sha256', this.#secret).update(`dpop-nonce:${slot}`).digest('base64url');
    return `${slot.toString(36)}.${mac.slice(0, 22)}`;
  }
}

function slotOf(now: Date): number {
  return Math.floor(now.getTime() / 1000 / SLOT_SECONDS);
}
