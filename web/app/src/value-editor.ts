import type { Claim } from '../../../src/model/claim.ts';
import { humanize } from '../../../src/surfaces/shared/describe.ts';
import {
  isRange,
  nameOf,
  type Read,
  readList,
  readNumber,
  readPercent,
  readRange,
  readScores,
  type ValueKind,
} from '../../../src/surfaces/shared/value-kind.ts';
import { h } from './dom.ts';

// The form that changes one value, one per kind the vocabularies allow (value-kind.ts): a radio
// group for a choice, boxes or add/remove for a list, a number with its unit, yes/no, two numbers
// for a range, a 0–100 level. What the form checks is a hint (is it a number at all); the
// provider's check decides, and `save` resolves to its refusal in words, shown in the form.

export interface EditorOptions {
  /** Prefix of every id in the form. */
  readonly id: string;
  readonly claim: Claim;
  readonly kind: ValueKind;
  /** The preference's name, for labels ("Length of a trip"). */
  readonly name: string;
  /** Sends the value; resolves to undefined when saved, or the refusal in words. */
  save(value: unknown): Promise<string | undefined>;
  cancel?(): void;
}

export function valueEditor(o: EditorOptions): HTMLFormElement {
  const id = (p: string) => `${o.id}-${p}`;
  const error = h('p', { class: 'error', id: id('error'), role: 'alert', hidden: true });
  const { fields, read } = fieldsFor(o, id);
  const save = h('button', { type: 'submit', id: id('save') }, 'Save');
  const form = h(
    'form',
    { class: 'value-editor', id: id('form'), novalidate: true, 'aria-describedby': id('error') },
    ...fields,
    error,
    h('div', { class: 'actions' }, save),
  );
  if (o.cancel !== undefined) {
    const cancel = h('button', { type: 'button', id: id('cancel') }, 'Cancel');
    cancel.addEventListener('click', () => o.cancel?.());
    form.querySelector('.actions')?.append(cancel);
  }
  const say = (words: string | undefined) => {
    error.textContent = words ?? '';
    error.hidden = words === undefined;
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const got = read();
    if ('problem' in got) {
      say(got.problem);
      return;
    }
    say(undefined);
    save.disabled = true;
    try {
      const refused = await o.save(got.value);
      if (refused !== undefined) say(refused);
    } finally {
      save.disabled = false;
    }
  });
  return form;
}

interface Fields {
  readonly fields: HTMLElement[];
  read(): Read;
}

function fieldsFor(o: EditorOptions, id: (p: string) => string): Fields {
  const v = o.claim.value;
  const k = o.kind;
  switch (k.kind) {
    case 'score': {
      const input = numberInput(id('value'), typeof v === 'number' ? String(Math.round(v * 100)) : '', {
        min: '0',
        max: '100',
        step: '1',
      });
      return {
        fields: [field(id('value'), `${o.name}, from 0 (low) to 100 (high)`, input)],
        read: () => readPercent(input.value),
      };
    }
    case 'number': {
      const input = numberInput(id('value'), typeof v === 'number' ? String(v) : '', {
        step: k.integer ? '1' : 'any',
      });
      const unit = k.unit !== undefined ? `, in ${k.unit}s` : '';
      const hint = k.integer ? `A whole number${k.unit !== undefined ? ` of ${k.unit}s` : ''}.` : undefined;
      return {
        fields: [field(id('value'), `${o.name}${unit}`, input, hint, id('hint'))],
        read: () => readNumber(input.value),
      };
    }
    case 'choice':
      return radios(id, o.name, k.options, typeof v === 'string' ? v : undefined);
    case 'switch':
      return radios(
        id,
        o.name,
        [
          { value: 'yes', label: 'Yes' },
          { value: 'no', label: 'No' },
        ],
        v === true ? 'yes' : v === false ? 'no' : undefined,
        (s) => ({ value: s === 'yes' }),
      );
    case 'text': {
      const input = h('input', { type: 'text', id: id('value'), value: typeof v === 'string' ? v : '' });
      return {
        fields: [field(id('value'), o.name, input)],
        read: () =>
          input.value.trim() === '' ? { problem: 'Type something first.' } : { value: input.value.trim() },
      };
    }
    case 'list':
      return k.options !== undefined
        ? boxes(id, o.name, k.options, Array.isArray(v) ? v : [])
        : names(id, o.name, Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    case 'range': {
      const r = isRange(v) ? v : undefined;
      const min = numberInput(id('min'), r ? String(r.min) : '', { step: 'any' });
      const max = numberInput(id('max'), r ? String(r.max) : '', { step: 'any' });
      return {
        fields: [
          h(
            'fieldset',
            { id: id('range') },
            h('legend', {}, o.name),
            field(id('min'), 'From', min),
            field(id('max'), 'To', max),
          ),
        ],
        read: () => readRange(min.value, max.value),
      };
    }
    case 'scores':
      return scores(
        id,
        o.name,
        v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {},
      );
  }
}

function numberInput(id: string, value: string, attrs: Record<string, string>): HTMLInputElement {
  return h('input', { type: 'number', id, value, inputmode: 'decimal', ...attrs });
}

function field(id: string, label: string, input: HTMLElement, hint?: string, hintId?: string): HTMLElement {
  if (hint !== undefined && hintId !== undefined) input.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint !== undefined ? h('p', { class: 'muted', id: hintId }, hint) : null,
  );
}

function radios(
  id: (p: string) => string,
  name: string,
  options: readonly { value: string; label: string }[],
  current: string | undefined,
  toValue: (s: string) => Read = (s) => ({ value: s }),
): Fields {
  const inputs = options.map((opt, i) =>
    h('input', {
      type: 'radio',
      name: id('choice'),
      id: id(`opt-${i}`),
      value: opt.value,
      checked: opt.value === current,
    }),
  );
  return {
    fields: [optionFieldset(id, name, options, inputs)],
    read: () => {
      const picked = inputs.find((i) => i.checked);
      return picked ? toValue(picked.value) : { problem: 'Choose one first.' };
    },
  };
}

/** Radios or boxes in one fieldset, each with its label: the choice and the list editors' form. */
function optionFieldset(
  id: (p: string) => string,
  name: string,
  options: readonly { value: string; label: string }[],
  inputs: readonly HTMLInputElement[],
): HTMLElement {
  return h(
    'fieldset',
    { id: id('choice') },
    h('legend', {}, name),
    ...options.map((opt, i) =>
      h('div', { class: 'option' }, inputs[i] as HTMLElement, h('label', { for: id(`opt-${i}`) }, opt.label)),
    ),
  );
}

function boxes(
  id: (p: string) => string,
  name: string,
  options: readonly { value: string; label: string }[],
  current: readonly unknown[],
): Fields {
  const inputs = options.map((opt, i) =>
    h('input', {
      type: 'checkbox',
      id: id(`opt-${i}`),
      value: opt.value,
      checked: current.includes(opt.value),
    }),
  );
  return {
    fields: [optionFieldset(id, name, options, inputs)],
    read: () => readList(inputs.filter((i) => i.checked).map((i) => i.value)),
  };
}

/** A list of free names: each with its Remove button, and a box to add one. */
function names(id: (p: string) => string, name: string, current: readonly string[]): Fields {
  const items = [...current];
  const list = h('ul', { class: 'plain-list', id: id('items'), 'aria-label': name });
  const input = h('input', { type: 'text', id: id('add-name'), autocomplete: 'off' });
  const add = h('button', { type: 'button', id: id('add') }, 'Add');
  const draw = (focusIndex?: number) => {
    list.replaceChildren(
      ...items.map((item, i) => {
        const remove = h(
          'button',
          { type: 'button', id: id(`remove-${i}`), 'aria-label': `Remove ${humanize(item)}` },
          'Remove',
        );
        remove.addEventListener('click', () => {
          items.splice(i, 1);
          draw(Math.min(i, items.length - 1));
          if (items.length === 0) input.focus();
        });
        return h('li', {}, h('span', {}, humanize(item)), ' ', remove);
      }),
    );
    if (items.length === 0) list.append(h('li', { class: 'muted' }, 'None.'));
    if (focusIndex !== undefined && focusIndex >= 0)
      document.getElementById(id(`remove-${focusIndex}`))?.focus();
  };
  const addTyped = () => {
    const typed = nameOf(input.value);
    if (typed !== '' && !items.includes(typed)) items.push(typed);
    input.value = '';
    draw();
    input.focus();
  };
  add.addEventListener('click', addTyped);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      addTyped();
    }
  });
  draw();
  return {
    fields: [
      h(
        'fieldset',
        { id: id('list') },
        h('legend', {}, name),
        list,
        h(
          'div',
          { class: 'field' },
          h('label', { for: id('add-name') }, 'Add one'),
          h('div', { class: 'inline' }, input, add),
        ),
      ),
    ],
    // A name typed but not added yet counts: the person pressed Save meaning it.
    read: () => readList(input.value.trim() !== '' ? [...items, nameOf(input.value)] : items),
  };
}

/** Names with a 0–100 level each: change a level, remove a name, add one. */
function scores(id: (p: string) => string, name: string, current: Record<string, unknown>): Fields {
  const rows: { name: string; input: HTMLInputElement }[] = Object.entries(current).map(([n, level]) => ({
    name: n,
    input: numberInput('', typeof level === 'number' ? String(Math.round(level * 100)) : '', {
      min: '0',
      max: '100',
      step: '1',
    }),
  }));
  const list = h('ul', { class: 'plain-list', id: id('items') });
  const newName = h('input', { type: 'text', id: id('add-name'), autocomplete: 'off' });
  const newLevel = numberInput(id('add-level'), '50', { min: '0', max: '100', step: '1' });
  const add = h('button', { type: 'button', id: id('add') }, 'Add');
  const draw = () => {
    list.replaceChildren(
      ...rows.map((r, i) => {
        r.input.id = id(`level-${i}`);
        const remove = h(
          'button',
          { type: 'button', id: id(`remove-${i}`), 'aria-label': `Remove ${humanize(r.name)}` },
          'Remove',
        );
        remove.addEventListener('click', () => {
          rows.splice(i, 1);
          draw();
          (document.getElementById(id(`remove-${Math.min(i, rows.length - 1)}`)) ?? newName).focus();
        });
        return h(
          'li',
          { class: 'field' },
          h('label', { for: r.input.id }, `${humanize(r.name)}, from 0 to 100`),
          h('div', { class: 'inline' }, r.input, remove),
        );
      }),
    );
  };
  add.addEventListener('click', () => {
    const n = nameOf(newName.value);
    if (n === '') return newName.focus();
    rows.push({ name: n, input: numberInput('', newLevel.value, { min: '0', max: '100', step: '1' }) });
    newName.value = '';
    draw();
    newName.focus();
  });
  draw();
  return {
    fields: [
      h(
        'fieldset',
        { id: id('list') },
        h('legend', {}, name),
        list,
        h('div', { class: 'field' }, h('label', { for: id('add-name') }, 'Add a name'), newName),
        h(
          'div',
          { class: 'field' },
          h('label', { for: id('add-level') }, 'Its level, from 0 to 100'),
          h('div', { class: 'inline' }, newLevel, add),
        ),
      ),
    ],
    read: () => readScores(rows.map((r) => [r.name, r.input.value] as const)),
  };
}
