/** Small shared pieces: a labelled field with help text, a definition block, an empty state. */
import type { ReactNode } from 'react';

export function Field(props: { id: string; label: string; help: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      <small id={`${props.id}-help`}>{props.help}</small>
    </div>
  );
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
