import { bigSession } from './lib/big-session';
import { serializeSession } from '../../src-main/session/write';
import { checkSession } from '../../src-main/session/read';
import { SessionSchema } from '../../src-main/session/schema';
const text = serializeSession(bigSession());
for (let i = 0; i < 4; i++) { let t = performance.now(); const j = JSON.parse(text); const a = performance.now() - t; t = performance.now(); checkSession(j); const b = performance.now() - t; t = performance.now(); SessionSchema.parse(j); console.log('parse', a.toFixed(0), 'check', b.toFixed(0), 'schema', (performance.now() - t).toFixed(0)); }
