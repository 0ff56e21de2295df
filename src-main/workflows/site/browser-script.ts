/**
 * The results site's script, run in the browser (bundled into site.js by site-bundle.ts): on
 * the index it sorts and filters the table and keeps that state in the URL's hash; on the
 * comparison page it loads the selected runs' data files and lays out the comparison with the
 * same model and renderer as `speedmatrix compare` (compare.ts). It fetches nothing: data
 * arrives as <script> files, which browsers load from file:// too. See docs/site.md.
 */
import type { Session } from '#shared/session/schema';
import { renderCompareHtml } from '../report/compare';
import { INDEX_READY, siteNav } from './pages';

/** The filter and sort state a link carries: #gpu=…&sort=decodeSingle&dir=desc. */
interface IndexState {
  filters: Record<string, string>;
  sort: string | null;
  dir: 'asc' | 'desc';
}

function readState(): IndexState {
  const p = new URLSearchParams(location.hash.slice(1));
  const filters: Record<string, string> = {};
  for (const [k, v] of p) if (k !== 'sort' && k !== 'dir' && v) filters[k] = v;
  return { filters, sort: p.get('sort'), dir: p.get('dir') === 'asc' ? 'asc' : 'desc' };
}

function writeState(s: IndexState): void {
  const p = new URLSearchParams(s.filters);
  if (s.sort) p.set('sort', s.sort);
  if (s.sort) p.set('dir', s.dir);
  const hash = p.toString();
  if (location.hash.slice(1) === hash) return;
  // replaceState keeps Back meaning "the page before the index"; file:// allows a hash change.
  history.replaceState(null, '', hash ? `#${hash}` : location.pathname + location.search);
}

/** What a cell sorts and filters by: its data-v when the builder wrote one, else its text. */
function cellValue(tr: HTMLTableRowElement, col: number): string {
  const td = tr.cells[col] as HTMLTableCellElement | undefined;
  return td?.dataset.v ?? td?.textContent ?? '';
}

function compareRows(a: string, b: string, kind: string, dir: 1 | -1): number {
  // Missing values sort last whichever the direction.
  if (a === '' || b === '') return a === b ? 0 : a === '' ? 1 : -1;
  return (kind === 'number' ? Number(a) - Number(b) : a.localeCompare(b)) * dir;
}

function setUpIndex(): void {
  const table = document.getElementById('runs') as HTMLTableElement;
  const tbody = table.tBodies[0];
  const headers = [...table.tHead!.rows[0].cells] as HTMLTableCellElement[];
  const rows = [...tbody.rows];
  const columnOf = (key: string): number => headers.findIndex((h) => h.dataset.key === key);
  const controls = [...document.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-filter]')];
  const shown = document.getElementById('shown')!;
  const compareButton = document.getElementById('compare-selected') as HTMLButtonElement;
  const picked: string[] = [];
  let state = readState();
  /** The order the rows are in: "" is the order the index was written in. */
  let sortedBy = '';

  const apply = (): void => {
    for (const c of controls) c.value = state.filters[c.dataset.filter!] ?? '';
    const q = (state.filters.q ?? '').toLowerCase();
    let count = 0;
    for (const tr of rows) {
      const match = Object.entries(state.filters).every(([k, v]) =>
        k === 'q' ? tr.textContent!.toLowerCase().includes(q) : tr.cells[columnOf(k)]?.textContent === v,
      );
      tr.hidden = !match;
      if (match) count++;
    }
    const col = state.sort ? columnOf(state.sort) : -1;
    for (const h of headers) if (h.dataset.key) h.setAttribute('aria-sort', 'none');
    // Rows move only when the order changes: moving 500 rows costs a layout of the table.
    const sortKey = col >= 0 ? `${state.sort}:${state.dir}` : '';
    if (sortKey !== sortedBy) {
      const ordered = [...rows];
      if (col >= 0) {
        const kind = headers[col].dataset.kind!;
        const dir = state.dir === 'asc' ? 1 : -1;
        ordered.sort((a, b) => compareRows(cellValue(a, col), cellValue(b, col), kind, dir));
      }
      tbody.append(...ordered);
      sortedBy = sortKey;
    }
    if (col >= 0) headers[col].setAttribute('aria-sort', state.dir === 'asc' ? 'ascending' : 'descending');
    shown.textContent = `${count} of ${rows.length} shown`;
    writeState(state);
  };

  for (const c of controls) {
    c.addEventListener(c instanceof HTMLSelectElement ? 'change' : 'input', () => {
      state = { ...state, filters: { ...state.filters, [c.dataset.filter!]: c.value } };
      if (!c.value) delete state.filters[c.dataset.filter!];
      apply();
    });
  }
  for (const h of headers) {
    const key = h.dataset.key;
    if (!key) continue;
    h.querySelector('button')!.addEventListener('click', () => {
      const first = h.dataset.kind === 'number' ? 'desc' : 'asc';
      const dir = state.sort === key ? (state.dir === 'asc' ? 'desc' : 'asc') : first;
      state = { ...state, sort: key, dir };
      apply();
    });
  }
  tbody.addEventListener('change', (e) => {
    const box = e.target as HTMLInputElement;
    const at = picked.indexOf(box.value);
    if (box.checked && at < 0) picked.push(box.value);
    if (!box.checked && at >= 0) picked.splice(at, 1);
    compareButton.disabled = picked.length < 2;
    compareButton.textContent = picked.length >= 2 ? `Compare ${picked.length} selected` : 'Compare selected';
  });
  compareButton.addEventListener('click', () => {
    location.href = `compare.html#runs=${picked.map(encodeURIComponent).join(',')}`;
  });
  document.querySelector('form.filters')!.addEventListener('submit', (e) => e.preventDefault());
  window.addEventListener('hashchange', () => {
    state = readState();
    apply();
  });
  apply();
  document.body.dataset.ready = 'true';
  // The benchmark (tests/bench/figures/site.ts) reads when the index became interactive.
  performance.mark(INDEX_READY);
}

declare global {
  interface Window {
    /** Each runs/<id>/data.js calls this with its session (site.ts writes them). */
    speedmatrixSiteRun?: (id: string, session: Session) => void;
    /** The comparison's runs still loading, by id. */
    speedmatrixSiteRunWaiting?: Map<string, (s: Session) => void>;
  }
}

function loadRun(id: string): Promise<Session> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `runs/${encodeURIComponent(id)}/data.js`;
    script.onerror = () => reject(new Error(`The data of run ${id} is missing from this site; build the site again.`));
    const sinks = (window.speedmatrixSiteRunWaiting ??= new Map<string, (s: Session) => void>());
    sinks.set(id, resolve);
    document.head.append(script);
  });
}

async function showComparison(): Promise<void> {
  const status = document.getElementById('compare-status')!;
  window.speedmatrixSiteRun = (id, session) => window.speedmatrixSiteRunWaiting?.get(id)?.(session);
  const ids = (new URLSearchParams(location.hash.slice(1)).get('runs') ?? '').split(',').filter(Boolean);
  if (ids.length < 2) {
    status.textContent = 'Select two or more runs in the index to compare them.';
    return;
  }
  try {
    const sessions = await Promise.all(ids.map(loadRun));
    const html = renderCompareHtml(sessions, { nav: siteNav(0) });
    document.open();
    document.write(html);
    document.close();
  } catch (e) {
    status.textContent = (e as Error).message;
  }
}

if (document.body.dataset.page === 'index') setUpIndex();
if (document.body.dataset.page === 'compare') void showComparison();
