import { withoutBidiControls } from '../../../model/shown-text.ts';
import type { Action, BoundBoolean, BoundNumber, BoundString, Component } from './messages.ts';

// One constructor per standard v0.8 component the PPX archetypes use, in the real v0.8 shape
// (`{id, component: {Card: {child}}}`, children as `{explicitList}`; WIRE-NOTES §1). Every text
// is a literal: v0.8 has no formatting, so the words a person reads are made here, from the
// object, and the data model keeps the object itself.

export type TextHint = 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'caption' | 'body';

// Every word a surface draws passes here: outside text (values, keys, names) loses its bidi
// controls (model/shown-text.ts), whichever renderer draws it.
const lit = (s: string): BoundString => ({ literalString: withoutBidiControls(s) });

export function text(id: string, words: string, usageHint: TextHint = 'body'): Component {
  return { id, component: { Text: { text: lit(words), usageHint } } };
}

export function column(id: string, children: readonly string[]): Component {
  return { id, component: { Column: { children: { explicitList: children } } } };
}

export function row(id: string, children: readonly string[]): Component {
  return { id, component: { Row: { children: { explicitList: children }, alignment: 'center' } } };
}

export function list(id: string, children: readonly string[]): Component {
  return { id, component: { List: { children: { explicitList: children }, direction: 'vertical' } } };
}

export function card(id: string, child: string): Component {
  return { id, component: { Card: { child } } };
}

/** Icon names are the v0.8 catalog's enum (a subset of Material Symbols). */
export type IconName = 'person' | 'info' | 'help' | 'check' | 'warning' | 'lock' | 'event' | 'visibility';

export function icon(id: string, name: IconName): Component {
  return { id, component: { Icon: { name: lit(name) } } };
}

/** A Button shows another component (its label, a Text) and is the only thing that emits an action. */
export function button(id: string, labelId: string, action: Action, primary = false): Component {
  return { id, component: { Button: { child: labelId, action, primary } } };
}

export function checkBox(id: string, label: string, value: BoundBoolean): Component {
  return { id, component: { CheckBox: { label: lit(label), value } } };
}

export function slider(id: string, label: string, value: BoundNumber, min: number, max: number): Component {
  return { id, component: { Slider: { label: lit(label), value, minValue: min, maxValue: max } } };
}

export function dateInput(id: string, value: BoundString): Component {
  return { id, component: { DateTimeInput: { value, enableDate: true, enableTime: false } } };
}

export function choice(
  id: string,
  selections: { readonly path: string },
  options: readonly { readonly value: string; readonly label: string }[],
): Component {
  return {
    id,
    component: {
      MultipleChoice: {
        selections,
        options: options.map((o) => ({ label: lit(o.label), value: o.value })),
        maxAllowedSelections: 1,
      },
    },
  };
}
