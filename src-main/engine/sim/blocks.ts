/**
 * Paged KV cache: a pool of fixed-size blocks. Full prompt blocks are registered under a chained
 * hash so later prompts with the same prefix reuse them (prefix caching); unreferenced cached
 * blocks stay resident until evicted, oldest first, as in vLLM v1 (they count as free).
 */
interface CachedBlock {
  hash: number;
  refs: number;
}

/** What one request holds: plain blocks (a count) and, first, its shared prefix blocks. */
export interface BlockHolder {
  plainBlocks: number;
  cachedBlocks: CachedBlock[];
}

export class BlockPool {
  private plainFree: number;
  private readonly byHash = new Map<number, CachedBlock>();
  /** Cached blocks nobody references, in least-recently-released order. */
  private readonly evictable = new Map<number, CachedBlock>();

  constructor(
    readonly total: number,
    readonly blockSize: number,
    readonly prefixCaching: boolean,
  ) {
    this.plainFree = total;
  }

  /** Free blocks, cached-but-unreferenced included (vLLM's definition). */
  get free(): number {
    return this.plainFree + this.evictable.size;
  }

  get usage(): number {
    return this.total === 0 ? 0 : (this.total - this.free) / this.total;
  }

  /** The longest run of leading block hashes already cached, up to `maxBlocks`. */
  lookup(hashes: ArrayLike<number>, maxBlocks: number): CachedBlock[] {
    const out: CachedBlock[] = [];
    if (!this.prefixCaching) return out;
    for (let i = 0; i < Math.min(hashes.length, maxBlocks); i++) {
      const b = this.byHash.get(hashes[i]);
      if (!b) break;
      out.push(b);
    }
    return out;
  }

  acquire(blocks: CachedBlock[]): void {
    for (const b of blocks) {
      if (b.refs++ === 0) this.evictable.delete(b.hash);
    }
  }

  /** Take n blocks for `holder`, evicting cached ones if needed; false (nothing taken) if they are not there. */
  allocate(holder: BlockHolder, n: number): boolean {
    if (n <= 0) return true;
    if (n > this.free) return false;
    const fromPlain = Math.min(n, this.plainFree);
    this.plainFree -= fromPlain;
    let rest = n - fromPlain;
    for (const hash of this.evictable.keys()) {
      if (rest === 0) break;
      this.evictable.delete(hash);
      this.byHash.delete(hash);
      rest--;
    }
    holder.plainBlocks += n;
    return true;
  }

  release(holder: BlockHolder): void {
    this.plainFree += holder.plainBlocks;
    for (const b of holder.cachedBlocks) {
      if (--b.refs === 0) this.evictable.set(b.hash, b);
    }
    holder.plainBlocks = 0;
    holder.cachedBlocks = [];
  }

  /** Turn one of the holder's plain blocks into the cached block for `hash` (its next prefix block). */
  promote(holder: BlockHolder, hash: number): boolean {
    if (!this.prefixCaching || holder.plainBlocks === 0 || this.byHash.has(hash)) return false;
    const b: CachedBlock = { hash, refs: 1 };
    this.byHash.set(hash, b);
    holder.plainBlocks--;
    holder.cachedBlocks.push(b);
    return true;
  }
}

/** Chained hashes of the full blocks of a token sequence (53-bit, from two 32-bit FNV-style lanes). */
export function blockHashes(ids: ArrayLike<number>, blockSize: number): number[] {
  const out: number[] = [];
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const full = Math.floor(ids.length / blockSize) * blockSize;
  for (let i = 0; i < full; i++) {
    const v = ids[i];
    h1 = Math.imul(h1 ^ v, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ (v + 0x9e3779b9), 0x85ebca6b) >>> 0;
    h2 = (h2 ^ (h2 >>> 13)) >>> 0;
    if ((i + 1) % blockSize === 0) out.push(h1 * 0x200000 + (h2 & 0x1fffff));
  }
  return out;
}
