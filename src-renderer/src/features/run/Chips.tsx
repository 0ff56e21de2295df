/** Editable chips: values shown as people write them; type "8k" or "256K" and press Enter to add. */
import { type ReactNode, useRef, useState } from 'react';

export function Chips(props: {
  id: string;
  label: string;
  values: number[];
  format: (v: number) => string;
  parse: (text: string) => number | null;
  /** What a value is, for the error under the field: "a token count such as 8k". */
  expects: string;
  onAdd: (v: number) => void;
  onRemove: (v: number) => void;
  disabled?: boolean;
  placeholder: string;
  /** A line under the chips, e.g. where the values come from. */
  note?: ReactNode;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  /** Keyboard users keep their place: focus goes to the next chip's remove button, else the input. */
  const remove = (v: number, index: number) => {
    props.onRemove(v);
    requestAnimationFrame(() => {
      const buttons = listRef.current?.querySelectorAll<HTMLButtonElement>('li.chip button');
      const next = buttons && buttons.length ? buttons[Math.min(index, buttons.length - 1)] : null;
      (next ?? listRef.current?.querySelector<HTMLInputElement>('input'))?.focus();
    });
  };
  const add = () => {
    const v = props.parse(text);
    if (v === null) {
      setError(`"${text.trim()}" is not ${props.expects}.`);
      return;
    }
    props.onAdd(v);
    setText('');
    setError(null);
  };
  return (
    <div className="chips-field" data-testid={`chips-${props.id}`}>
      <label htmlFor={`chip-in-${props.id}`}>{props.label}</label>
      <ul className="chips" aria-label={props.label} ref={listRef}>
        {props.values.map((v, i) => (
          <li key={v} className="chip">
            {props.format(v)}
            <button
              type="button"
              aria-label={`Remove ${props.format(v)}`}
              onClick={() => remove(v, i)}
              disabled={props.disabled}
            >
              ×
            </button>
          </li>
        ))}
        <li>
          <input
            id={`chip-in-${props.id}`}
            value={text}
            placeholder={props.placeholder}
            disabled={props.disabled}
            aria-invalid={error ? true : undefined}
            aria-errormessage={error ? `chip-err-${props.id}` : undefined}
            onChange={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && text.trim()) {
                e.preventDefault();
                add();
              }
            }}
          />
          <button type="button" onClick={add} disabled={props.disabled || !text.trim()}>
            Add
          </button>
        </li>
      </ul>
      {props.note && <small className="muted">{props.note}</small>}
      {error && (
        <small className="error" id={`chip-err-${props.id}`} role="alert">
          {error}
        </small>
      )}
    </div>
  );
}
