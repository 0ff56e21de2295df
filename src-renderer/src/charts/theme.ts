/** The OS theme, followed live; charts re-render with matching colours when it flips. */
import { useSyncExternalStore } from 'react';

// One MediaQueryList for the page: getSnapshot runs on every render, and matchMedia is not cheap.
let mql: MediaQueryList | null = null;
const query = (): MediaQueryList => (mql ??= window.matchMedia('(prefers-color-scheme: dark)'));

export function useDarkTheme(): boolean {
  return useSyncExternalStore(
    (cb) => {
      const mq = query();
      mq.addEventListener('change', cb);
      return () => mq.removeEventListener('change', cb);
    },
    () => query().matches,
  );
}

interface ChartColors {
  text: string;
  grid: string;
  line1: string;
  line2: string;
  paper: string;
}

export function chartColors(dark: boolean): ChartColors {
  return dark
    ? { text: '#e6e6e6', grid: '#3a3f47', line1: '#5ec962', line2: '#f2a541', paper: 'rgba(0,0,0,0)' }
    : { text: '#1d232b', grid: '#d9dde3', line1: '#21918c', line2: '#c0621b', paper: 'rgba(0,0,0,0)' };
}
