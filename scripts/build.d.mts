export function isFresh(name: "server" | "web"): boolean;
export function build(options?: { names?: ("server" | "web")[]; ifStale?: boolean }): Promise<void>;
