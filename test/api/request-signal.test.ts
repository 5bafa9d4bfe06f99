import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createContextValues } from "@connectrpc/connect";
import { universalRequestOf } from "../../src/server/node-request.js";

// The HTTP/1.1 request adapter (src/server/node-request.ts) on a real loopback server: a call's
// signal stays quiet once its answer was sent, and aborts when the client leaves before it.

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server whose one request is adapted, answered after `answerAfterMs` (or never), and reported. */
async function serve(answerAfterMs: number | undefined) {
  let seen!: (signal: AbortSignal, body: string, url: string) => void;
  const call = new Promise<{ signal: AbortSignal; body: string; url: string }>(
    (resolve) => (seen = (signal, body, url) => resolve({ signal, body, url })),
  );
  server = createServer(async (req, res) => {
    const universal = universalRequestOf(req, res, createContextValues());
    let body = "";
    for await (const chunk of universal.body as AsyncIterable<Uint8Array>) body += Buffer.from(chunk).toString();
    seen(universal.signal, body, universal.url);
    if (answerAfterMs !== undefined) setTimeout(() => res.end("done"), answerAfterMs);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, call };
}

function post(port: number, body: string) {
  const req = request({ port, host: "127.0.0.1", method: "POST", path: "/x?y=1" });
  req.end(body);
  return req;
}

describe("a call's signal (HTTP/1.1)", () => {
  it("carries the body and the URL, and is not aborted after the answer was sent", async () => {
    const { port, call } = await serve(0);
    const answered = new Promise<string>((resolve) =>
      post(port, '{"charge":"trx-1"}').on("response", (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk)).on("end", () => resolve(text));
      }),
    );
    const { signal, body, url } = await call;
    expect(body).toBe('{"charge":"trx-1"}');
    expect(url).toBe(`http://127.0.0.1:${port}/x?y=1`);
    expect(await answered).toBe("done");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signal.aborted).toBe(false);
  });

  it("aborts when the client closes the connection before the answer", async () => {
    const { port, call } = await serve(undefined);
    const req = post(port, "{}");
    req.on("error", () => {});
    const { signal } = await call;
    expect(signal.aborted).toBe(false);
    const aborted = new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    req.destroy();
    await aborted;
    expect(signal.aborted).toBe(true);
  });
});
