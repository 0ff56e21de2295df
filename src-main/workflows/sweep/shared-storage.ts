/**
 * Whether a sweep folder is on storage a cluster's nodes share: the jobs read sweep.json and
 * write their session files and logs there, so a folder on this machine's own disk works only
 * when the jobs run on this machine. Known from the folder's file system type (statfs).
 * See docs/sweeps.md, "Sweeps on Slurm".
 */
import { statfsSync } from 'node:fs';

/** statfs magic numbers of the network and cluster file systems (linux/magic.h and the vendors'). */
const SHARED: Record<number, string> = {
  0x6969: 'NFS',
  0x0bd00bd0: 'Lustre',
  0x47504653: 'GPFS (Spectrum Scale)',
  0x19830326: 'BeeGFS',
  0x00c36400: 'CephFS',
  0xff534d42: 'CIFS',
  0xfe534d42: 'SMB',
  0xaad7aad7: 'PanFS',
  0x65735546: 'a FUSE file system',
  0x01021997: '9P',
};

const LOCAL: Record<number, string> = {
  0xef53: 'ext4',
  0x58465342: 'XFS',
  0x9123683e: 'Btrfs',
  0x01021994: 'tmpfs',
  0x794c7630: 'overlay',
  0x2fc12fc1: 'ZFS',
};

export interface StorageCheck {
  shared: boolean | null;
  /** One line for the person: what the folder is on, and what that means for the jobs. */
  line: string;
}

export function sharedStorage(dir: string): StorageCheck {
  let type: number;
  try {
    type = Number(statfsSync(dir).type) >>> 0;
  } catch (e) {
    return { shared: null, line: `Could not tell what storage ${dir} is on (${(e as Error).message}).` };
  }
  if (SHARED[type])
    return {
      shared: true,
      line: `Sweep folder ${dir} is on ${SHARED[type]}: the nodes can reach it if they mount it at the same path.`,
    };
  const local = LOCAL[type] ?? `file system type 0x${type.toString(16)}`;
  return {
    shared: false,
    line: `Sweep folder ${dir} is on this machine's own storage (${local}), not storage the nodes share: jobs on other nodes cannot read sweep.json or write their results there (fine when the jobs run on this machine). For a cluster, put --out-dir on shared storage (NFS, Lustre, GPFS, BeeGFS, CephFS).`,
  };
}
