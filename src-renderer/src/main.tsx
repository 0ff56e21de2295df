import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')!).render(<h1>SpeedMatrix</h1>);
