/**
 * Run by a test as a process of its own group: starts what SpeedMatrix starts on a machine without
 * nvidia-smi and stops it at once, before Node has said that the spawn failed. Prints "still here"
 * if nothing signalled this process's group meanwhile (docs/architecture.md, "Signalling a child").
 */
import { spawn } from 'node:child_process';
import { GpuTelemetry } from '../../src-main/platform/hardware/telemetry';
import { signalChild } from '../../src-main/platform/processes/signal-child';

const missing = '/nonexistent/speedmatrix-test/nvidia-smi';
const telemetry = new GpuTelemetry({ nvidiaSmi: missing });
telemetry.start();
telemetry.stop();
const child = spawn(missing, [], { stdio: 'ignore' });
child.on('error', () => undefined);
const sent = signalChild(child, 'SIGTERM');
setTimeout(() => process.stdout.write(`still here; signal sent to the failed child: ${sent}\n`), 500);
