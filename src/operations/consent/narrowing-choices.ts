// What a consent form may offer for a policy the client asked for, and the narrowing a form's
// choice expresses (policy/narrowing.ts), on their own: the A2UI components and the consent page
// import them, and the components are bundled into the web app, so this must not pull in the rest
// of the consent operations (the store, the read path).
export { allowedNarrowings, narrowingOfChoice } from '../../policy/narrowing.ts';
