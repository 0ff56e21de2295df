/** The server's state as a badge, and how long it has been starting: shown by the Server and Run views. */
import { useEffect, useState } from 'react';
import { useApp } from '../store';
import { fmtDuration } from '../format';

/** The server's state as a badge; `subject` names it where another badge stands beside it (the Run view). */
export function StatusBadge({ subject }: { subject?: string }) {
  const state = useApp((s) => s.server.state);
  const words: Record<string, string> = {
    idle: 'Not running',
    starting: 'Starting',
    ready: 'Ready',
    stopping: 'Stopping',
    exited: 'Stopped',
    failed: 'Failed',
  };
  return (
    <span className={`badge st-server-${state}`} data-testid="server-status" data-state={state}>
      {subject ? `${subject}: ${words[state].toLowerCase()}` : words[state]}
    </span>
  );
}

export function Elapsed({ since, progress }: { since: number | null; progress: string | null }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return (
    <span className="muted" data-testid="server-elapsed">
      Starting for {fmtDuration(since ? (now - since) / 1000 : 0)}
      {progress ? ` · ${progress}` : ''}
    </span>
  );
}
