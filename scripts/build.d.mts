export function isFresh(name: "server" | "web" | "client"): boolean;
export function build(options?: { names?: ("server" | "web" | "client")[]; ifStale?: boolean }): Promise<void>;
