/** A typed event emitter for the contract's main -> renderer events. */
import type { EventChannel, EventPayloads } from '#shared/ipc/contract';

type Listener<E extends EventChannel> = (payload: EventPayloads[E]) => void;

export class CoreEvents {
  private listeners = new Map<EventChannel, Set<Listener<never>>>();

  on<E extends EventChannel>(event: E, cb: Listener<E>): () => void {
    const set = this.listeners.get(event) ?? new Set();
    this.listeners.set(event, set);
    set.add(cb as Listener<never>);
    return () => set.delete(cb as Listener<never>);
  }

  emit<E extends EventChannel>(event: E, payload: EventPayloads[E]): void {
    for (const cb of this.listeners.get(event) ?? []) {
      try {
        (cb as Listener<E>)(payload);
      } catch {
        // One broken listener (a closed window, a dropped socket) must not stop the others.
      }
    }
  }
}
