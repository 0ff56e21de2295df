/**
 * The public entry of the workflows layer: the run orchestrator, sweeps, report renderers, importers of other tools' results.
 * The layers above import from here and nowhere else in this folder; files inside the layer import each
 * other directly. `npm run lint` holds both (scripts/check-layers.ts, docs/architecture.md).
 */
export { importFile, importText } from './importers';
export { openSessionOrImport, startsLikeJson } from './importers/open';
export { RunRefused, startOrchestratedRun } from './orchestrator/orchestrator';
export type { OrchestratedRun, ServerSide } from './orchestrator/orchestrator';
export { readHardwareFile } from './orchestrator/server-hardware';
export { attachServer, launchServer } from './orchestrator/server-side';
export { renderCompareHtml, renderCompareMarkdown } from './report/compare';
export { renderHtmlReport } from './report/html';
export { renderMarkdownReport } from './report/markdown';
export { htmlToPdf } from './report/pdf';
export type { PaperSize } from './report/pdf';
export { renderSweepHtml, renderSweepMarkdown } from './report/sweep';
export type { SweepEntry } from './report/sweep';
export { buildSite } from './site/build';
export { INDEX_PAGE } from './site/pages';
export { createSweep, needsApiKey, sweepLauncher, sweepOutcomeLine } from './sweep/folder';
export { SWEEP_MANIFEST, readManifest } from './sweep/manifest';
export type { SweepManifest, VariantState } from './sweep/manifest';
export { planSweep, sweepPlanLine, sweepSecondsLeft } from './sweep/plan';
export { readSweepEntries, writeSweepReports } from './sweep/reports';
export { SweepRun } from './sweep/run-sweep';
