/** Small shared pieces: a labelled field with help text, a definition block, an empty state. */
import type { ReactNode } from 'react';

/** A labelled field; its error (if any) sits right under it, where the input points to it. */
export function Field(props: { id: string; label: string; help: string; error?: string | null; children: ReactNode }) {
  return (
    <div className={`field${props.error ? ' invalid' : ''}`}>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.error && (
        <small id={fieldErrorId(props.id)} className="error field-error" role="alert">
          {props.error}
        </small>
      )}
      <small id={`${props.id}-help`}>{props.help}</small>
    </div>
  );
}

const fieldErrorId = (id: string): string => `${id}-error`;

/** The ARIA attributes of an input whose field may be invalid. */
export function invalidProps(id: string, error: string | null | undefined) {
  return error
    ? {
        'aria-invalid': true as const,
        'aria-errormessage': fieldErrorId(id),
        'aria-describedby': `${fieldErrorId(id)} ${id}-help`,
      }
    : { 'aria-describedby': `${id}-help` };
}

export function Block(props: { title: string; rows: [string, ReactNode][]; testId?: string }) {
  return (
    <section className="block" data-testid={props.testId}>
      <h3>{props.title}</h3>
      <dl>
        {props.rows.map(([k, v], i) => (
          // Labels may repeat (several "Note" rows), so the position is part of the key.
          <div key={`${i}:${k}`} className="row">
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

export function Empty(props: { title: string; children: ReactNode; testId?: string }) {
  return (
    <div className="empty-state" data-testid={props.testId}>
      <h2>{props.title}</h2>
      {props.children}
    </div>
  );
}
