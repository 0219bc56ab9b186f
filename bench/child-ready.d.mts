/** Announces {type:'ready', url, ...extra} over IPC; stops cleanly on {type:'stop'}, SIGTERM or disconnect. */
export function childReady(url: string, extra: Record<string, unknown>, stop: () => Promise<void>): void;

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number>;
