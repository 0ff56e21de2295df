/** The last part of a path, on any OS. */
export const basename = (p: string): string => p.split(/[\\/]/).pop() ?? p;
