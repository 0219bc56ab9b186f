/** Announces {type:'ready', url, ...extra} over IPC; stops cleanly on {type:'stop'}, SIGTERM or disconnect. */
export function childReady(url: string, extra: Record<string, unknown>, stop: () => Promise<void>): void;
