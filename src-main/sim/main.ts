// simulated vLLM server entry (filled by the simulator issue)
export {};
