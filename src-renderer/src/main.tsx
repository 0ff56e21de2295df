/** Renderer entry: find the bridge, wire its events into the store, render the shell, boot. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getBridge } from './bridge';
import { App } from './features/shell/App';
import { appStore } from './store';
import { boot } from './store/actions';
import { wireEvents } from './store/wire';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);
const bridge = getBridge();
if (!bridge) {
  appStore.getState().setAppError('No connection to the SpeedMatrix core. Open this page inside the app (npm start).');
} else {
  wireEvents(bridge, appStore);
  void boot();
}
root.render(
  <StrictMode>
    <App />
  </StrictMode>,
);
