// The PPX archetypes of bindings/a2ui.md as A2UI v0.8 messages, for any surface that shows a
// person their profile (the web app, the A2A surface): each builder is pure (now is an argument)
// and returns one surface's parts; surfaceMessages turns them into the messages to send.
export { claimCard, proposalCard } from './claim-card.ts';
export { type ConsentRequest, consentRequestForm } from './consent-request-form.ts';
export { grantCard } from './grant-card.ts';
export type { A2uiMessage, SurfaceParts } from './messages.ts';
export { deleteSurface, surfaceMessages } from './messages.ts';
export { profileDiffView } from './profile-diff-view.ts';
export {
  groupSuggestions,
  type SuggestionGroup,
  suggestionGroup,
} from './suggestion-group.ts';
export {
  type A2uiMessageV09,
  BASIC_CATALOG_V09,
  type ComponentV09,
  deleteSurfaceV09,
  surfaceMessagesV09,
} from './v09.ts';
