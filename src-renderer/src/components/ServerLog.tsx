/** The live server log with search and auto-scroll; lines are text, never markup. */
import { useEffect, useMemo, useRef } from 'react';
import { useApp } from '../store';

export function ServerLog({ compact = false }: { compact?: boolean }) {
  const lines = useApp((s) => s.serverLog);
  const filter = useApp((s) => s.logFilter);
  const setFilter = useApp((s) => s.setLogFilter);
  const auto = useApp((s) => s.autoScroll);
  const setAuto = useApp((s) => s.setAutoScroll);
  const ref = useRef<HTMLPreElement>(null);
  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? lines.filter((l) => l.toLowerCase().includes(q)) : lines;
  }, [lines, filter]);
  useEffect(() => {
    if (auto && ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [shown, auto]);
  return (
    <section className="log" aria-label="Server log">
      <div className="log-head">
        <h2>Server log</h2>
        <input
          type="search"
          placeholder="Search the log"
          aria-label="Search the log"
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
        />
        <label>
          <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} /> Auto-scroll
        </label>
        <span className="muted">{filter ? `${shown.length} of ${lines.length} lines` : `${lines.length} lines`}</span>
      </div>
      <pre ref={ref} className={compact ? 'log-body compact' : 'log-body'} data-testid="server-log" tabIndex={0}>
        {shown.length ? shown.join('\n') : 'No log yet: start a server to see its output here.'}
      </pre>
    </section>
  );
}
