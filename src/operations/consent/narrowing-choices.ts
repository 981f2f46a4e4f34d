// What a consent form may offer for a policy the client asked for (policy/narrowing.ts), on its
// own: the A2UI components import it, and they are bundled into the web app, so it must not pull
// in the rest of the consent operations (the store, the read path).
export { allowedNarrowings } from '../../policy/narrowing.ts';
