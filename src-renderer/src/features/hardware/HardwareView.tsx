/**
 * Hardware: a card per GPU, CPU/RAM/OS, live telemetry, and a clear "no GPU" state; with a remote
 * host chosen in the Server view, that host's hardware first, as its own speedmatrix detects it.
 */
import { useEffect } from 'react';
import type { Gpu, Hardware } from '#shared/session/schema';
import { Sparkline } from '../../charts/Sparkline';
import { NONE, fmtGigabytes, fmtPercent, fmtTemperature, fmtWatts } from '../../format';
import { useApp } from '../../store';
import { detectHardware, detectRemoteHardware, updateServerForm } from '../../store/actions';
import { Block, Empty } from '../../components/ui';

export function HardwareView() {
  const hw = useApp((s) => s.hardware);
  const loading = useApp((s) => s.hardwareLoading);
  const error = useApp((s) => s.hardwareError);
  const setView = useApp((s) => s.setView);
  const remoteChosen = useApp((s) => s.serverForm?.where === 'ssh' && s.serverForm.sshHost.trim() !== '');

  const useSimulator = () => {
    updateServerForm({ kind: 'simulator' });
    setView('server');
  };

  return (
    <section aria-labelledby="hw-title" data-testid="view-hardware">
      <RemoteHardwareSection />
      <div className="view-head">
        <h1 id="hw-title">{remoteChosen ? 'This machine' : 'Hardware'}</h1>
        <button type="button" onClick={() => void detectHardware()} disabled={loading}>
          {loading ? 'Detecting…' : 'Detect again'}
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!hw && loading && <p className="muted">Looking for GPUs, CPU, memory and OS…</p>}
      {hw && hw.gpus.length === 0 && (
        <Empty title="No supported GPU found" testId="no-gpu">
          <p>
            SpeedMatrix measures NVIDIA GPUs through nvidia-smi, AMD GPUs through amd-smi and Apple GPUs through the
            system profiler.
          </p>
          {hw.notes.length > 0 && (
            <>
              <p>What detection saw:</p>
              <ul>
                {hw.notes.map((n, i) => (
                  <li key={i}>{n}</li>
                ))}
              </ul>
            </>
          )}
          <p>
            You can still try everything with the built-in simulator, which behaves like vLLM on a chosen GPU profile.{' '}
            <button type="button" onClick={useSimulator}>
              Use the simulator
            </button>
          </p>
        </Empty>
      )}
      {hw && hw.gpus.length > 0 && (
        <div className="cards">
          {hw.gpus.map((g) => (
            <GpuCard key={g.index} gpu={g} />
          ))}
        </div>
      )}
      {hw && <SystemBlocks hw={hw} testId="system-block" />}
    </section>
  );
}

function SystemBlocks({ hw, testId }: { hw: Hardware; testId: string }) {
  return (
    <div className="cards">
      <Block
        title="System"
        testId={testId}
        rows={[
          [
            'CPU',
            hw.cpu
              ? `${hw.cpu.model}${hw.cpu.cores ? ` · ${hw.cpu.cores} cores` : ''}${hw.cpu.threads ? ` · ${hw.cpu.threads} threads` : ''}`
              : NONE,
          ],
          ['RAM', fmtGigabytes(hw.ramBytes)],
          ['OS', hw.os ? [hw.os.distro ?? hw.os.platform, hw.os.release, hw.os.arch].filter(Boolean).join(' ') : NONE],
          ['Kernel', hw.os?.kernel ?? NONE],
        ]}
      />
      {hw.gpus.length > 0 && hw.notes.length > 0 && (
        <Block title="Notes" rows={hw.notes.map((n, i) => [`${i + 1}`, n])} />
      )}
    </div>
  );
}

/** The remote host's GPUs, CPU, RAM and OS, detected there when the view opens or the host changes. */
function RemoteHardwareSection() {
  const host = useApp((s) => (s.serverForm?.where === 'ssh' ? s.serverForm.sshHost.trim() : ''));
  const remote = useApp((s) => s.remoteHardware);
  const loading = useApp((s) => s.remoteHardwareLoading);
  const error = useApp((s) => s.remoteHardwareError);
  const known = remote?.host === host || error?.host === host || loading === host;
  useEffect(() => {
    if (host && !known) void detectRemoteHardware();
  }, [host, known]);
  if (!host) return null;
  const hw = remote?.host === host ? remote.hardware : null;
  return (
    <section aria-labelledby="hw-remote-title" data-testid="remote-hardware">
      <div className="view-head">
        <h1 id="hw-remote-title">Remote host: {host}</h1>
        <button type="button" onClick={() => void detectRemoteHardware()} disabled={loading !== null}>
          {loading === host ? 'Detecting…' : 'Detect again'}
        </button>
      </div>
      {error?.host === host && (
        <p className="error" role="alert" data-testid="remote-hardware-error">
          {error.message}
        </p>
      )}
      {!hw && loading === host && <p className="muted">Asking speedmatrix on {host} over ssh…</p>}
      {hw && hw.gpus.length === 0 && (
        <p className="hint" data-testid="remote-no-gpu">
          No supported GPU found on {host}
          {remote?.noGpuMessage ? `: ${remote.noGpuMessage}` : '.'} The simulator runs there all the same.
        </p>
      )}
      {hw && hw.gpus.length > 0 && (
        <div className="cards">
          {hw.gpus.map((g) => (
            <GpuCard key={g.index} gpu={g} remote />
          ))}
        </div>
      )}
      {hw && <SystemBlocks hw={hw} testId="remote-system-block" />}
    </section>
  );
}

function GpuCard({ gpu, remote }: { gpu: Gpu; remote?: boolean }) {
  const local = useApp((s) => s.telemetry[gpu.index]);
  const samples = remote ? undefined : local;
  const last = samples?.[samples.length - 1];
  return (
    <article className="card gpu-card" data-testid="gpu-card">
      <h2>
        GPU {gpu.index}: {gpu.name}
      </h2>
      <dl>
        <div className="row">
          <dt>VRAM</dt>
          <dd>{fmtGigabytes(gpu.vramBytes)}</dd>
        </div>
        <div className="row">
          <dt>Driver</dt>
          <dd>{gpu.driver ?? NONE}</dd>
        </div>
        <div className="row">
          <dt>CUDA</dt>
          <dd>{gpu.cuda ?? NONE}</dd>
        </div>
        <div className="row">
          <dt>Compute capability</dt>
          <dd>{gpu.computeCapability ?? NONE}</dd>
        </div>
        <div className="row">
          <dt>Power limit</dt>
          <dd>{fmtWatts(gpu.powerLimitWatts)}</dd>
        </div>
        <div className="row">
          <dt>Bus id</dt>
          <dd>{gpu.busId ?? NONE}</dd>
        </div>
      </dl>
      {samples && samples.length > 0 ? (
        <div className="sparks" data-testid="telemetry">
          <Sparkline
            label="Utilization"
            values={samples.map((s) => (s.utilization ?? 0) * 100)}
            max={100}
            current={fmtPercent(last?.utilization)}
          />
          <Sparkline
            label="Memory"
            values={samples.map((s) => s.memoryUsedBytes)}
            max={last?.memoryTotalBytes ?? gpu.vramBytes ?? undefined}
            current={fmtGigabytes(last?.memoryUsedBytes)}
          />
          <Sparkline
            label="Power"
            values={samples.map((s) => s.powerWatts)}
            max={gpu.powerLimitWatts ?? undefined}
            current={fmtWatts(last?.powerWatts)}
          />
          <Sparkline
            label="Temperature"
            values={samples.map((s) => s.temperatureC)}
            max={100}
            current={fmtTemperature(last?.temperatureC)}
          />
        </div>
      ) : remote ? (
        <p className="muted">A run there samples this GPU on the host and records it in its session.</p>
      ) : (
        <p className="muted">Live utilization, memory, power and temperature appear here while a server runs.</p>
      )}
    </article>
  );
}
