/**
 * A webhook receiver on loopback that answers 200 at once (bench/webhook-throughput.ts,
 * bench/debit-day.ts): notes each event id's first arrival and creation time, and resolves
 * `until(condition)` as soon as an arrival makes the condition hold. It checks no signature.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackReceiver {
  readonly url: string;
  /** Each event id delivered, with when it first arrived and when it was created (ms). */
  readonly arrivals: Map<string, { arrivedAt: number; createdAt: number }>;
  until(condition: () => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startLoopbackReceiver(): Promise<LoopbackReceiver> {
  const arrivals: LoopbackReceiver["arrivals"] = new Map();
  let onArrival = () => {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const arrivedAt = Date.now();
      const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string; created_at: string };
      if (!arrivals.has(envelope.id))
        arrivals.set(envelope.id, { arrivedAt, createdAt: Date.parse(envelope.created_at) });
      res.writeHead(200).end();
      onArrival();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    until: (condition) =>
      new Promise((resolve) => {
        const check = () => {
          if (!condition()) return;
          onArrival = () => {};
          resolve();
        };
        onArrival = check;
        check();
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
