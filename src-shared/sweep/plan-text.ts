/** How a sweep plan's time reads, the same in the CLI's plan line and the app's sweep panel. */
import type { SweepPlanFigures } from '../ipc/contract';
import { fmtDuration } from '../report/format';

/** "about 5 min with the server starts", or "about 4 min of measuring plus the server starts" when they are not known. */
export function sweepTimeText(p: SweepPlanFigures): string {
  return p.serverStartSeconds === null
    ? `about ${fmtDuration(p.measuringSeconds)} of measuring plus the server starts`
    : `about ${fmtDuration(p.measuringSeconds + p.serverStartSeconds)} with the server starts`;
}
