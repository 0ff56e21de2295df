// benchmark worker entry (filled by the engine issue)
export {};
