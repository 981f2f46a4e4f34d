import type { ConsentReceiptClaims } from '../../model/consent-receipt.ts';
import { dayWords, listWords } from './a2ui/words.ts';
import { namespaceWords } from './describe.ts';

// A consent receipt in one sentence (docs/receipts.md): what was decided, for which app, about
// which groups of preferences, until when. The same sentence in the person's web app ("You let
// …") and in `ppx receipt verify` ("The person let …"), in the glossary's words and the one
// date format.

/** Who the sentence is about: the person themselves, or the person as a third party. */
export type ReceiptVoice = 'you' | 'the person';

export function receiptSentence(c: ConsentReceiptClaims, voice: ReceiptVoice = 'you'): string {
  const [they, their, pronoun] = voice === 'you' ? ['You', 'your', 'you'] : ['The person', 'their', 'they'];
  const app = c.app.name;
  const groups = listWords(c.data.namespaces.map((ns) => lowerFirst(namespaceWords(ns).title)));
  const until = c.expires_at !== undefined ? `until ${dayWords(c.expires_at)}` : `until ${pronoun} stop it`;
  switch (c.decision) {
    case 'approved':
      return `${they} let ${app} see ${their} ${groups} ${until}.`;
    case 'narrowed':
      return `${they} let ${app} see ${their} ${groups} ${until}, less than it asked for.`;
    case 'rejected':
      return `${they} said no to ${app}, which asked to see ${their} ${groups}.`;
    case 'revoked':
      if (c.revoked_by === 'app') return `${app} gave up its access to ${their} ${groups}.`;
      if (c.revoked_by === 'provider')
        return `${app}'s access to ${their} ${groups} was ended to protect it.`;
      return `${they} stopped ${app} seeing ${their} ${groups}.`;
    case 'expired':
      return `${app}'s access to ${their} ${groups} ended on ${dayWords(c.decided_at)}.`;
  }
}

function lowerFirst(s: string): string {
  return s.length === 0 ? s : s[0]!.toLowerCase() + s.slice(1);
}
