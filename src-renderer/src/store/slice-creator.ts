/**
 * How a slice of the store (types.ts) is made: from the store's set and get, typed by what the
 * slice reads (R: its own state, or more where it folds another slice's state in). A slice never
 * imports the whole store's type, so the store and its slices do not need each other.
 */
export type SliceCreator<T, R = T> = (set: (partial: Partial<R> | ((s: R) => Partial<R>)) => void, get: () => R) => T;
