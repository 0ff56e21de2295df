/**
 * The Load form's conversations (docs/load.md, "Conversations"): each arrival starts a
 * conversation of this many turns, each later turn sending the whole history plus a new message
 * after the think time. 1 turn: single requests, as without conversations.
 */
import type { LoadForm } from '#shared/ipc/forms';
import { Field, invalidProps } from '../../components/ui';
import { useApp } from '../../store';

/** A number field as typed: empty or not a number is NaN, so the field says what it takes. */
const typed = (text: string): number => (text.trim() === '' ? NaN : Number(text));

/** The conversation fields checked in the form's words (null: fine). */
export function conversationErrors(form: Pick<LoadForm, 'turns' | 'thinkSeconds'>) {
  const turns = form.turns ?? 1;
  const think = form.thinkSeconds ?? 0;
  return {
    turns: Number.isInteger(turns) && turns >= 1 ? null : 'Give the turns per conversation: a whole number, 1 or more.',
    thinkSeconds: think >= 0 ? null : 'Give the think time in seconds: 0 or more.',
  };
}

export function ConversationFields() {
  const form = useApp((s) => s.loadForm);
  const update = useApp((s) => s.updateLoadForm);
  const errors = conversationErrors(form);
  const turns = form.turns ?? 1;
  return (
    <div className="form-grid" data-testid="conversation-fields">
      <Field
        id="load-turns"
        label="Turns"
        help="Each arrival starts a conversation of this many turns; each later turn sends the history back. 1: single requests."
        error={errors.turns}
      >
        <input
          id="load-turns"
          type="number"
          min={1}
          value={Number.isFinite(turns) ? turns : ''}
          onChange={(e) => update({ turns: typed(e.currentTarget.value) })}
          {...invalidProps('load-turns', errors.turns)}
        />
      </Field>
      {turns > 1 && (
        <Field
          id="load-think"
          label="Think time (s)"
          help="Seconds between an answer and the conversation's next turn."
          error={errors.thinkSeconds}
        >
          <input
            id="load-think"
            type="number"
            min={0}
            step="any"
            value={Number.isFinite(form.thinkSeconds ?? 0) ? (form.thinkSeconds ?? 0) : ''}
            onChange={(e) => update({ thinkSeconds: typed(e.currentTarget.value) })}
            {...invalidProps('load-think', errors.thinkSeconds)}
          />
        </Field>
      )}
    </div>
  );
}
