import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttp2Server, createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import { readFileSync } from "node:fs";

export type RequestListener = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => void;

const http2Preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export interface Listener {
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes idle sockets. */
  close(graceMs?: number): Promise<void>;
}

/**
 * One port for every client: HTTP/1.1 (curl, browsers, the plain HTTP paths) and cleartext
 * HTTP/2 with prior knowledge (gRPC), told apart by the first bytes of the connection. With a
 * certificate the port speaks TLS and ALPN picks h2 or http/1.1.
 */
export async function listen(handler: RequestListener, options: { port: number; host: string; tlsCertFile?: string; tlsKeyFile?: string }): Promise<Listener> {
  const sockets = new Set<Socket>();
  let server: Server;
  if (options.tlsCertFile && options.tlsKeyFile) {
    server = createSecureServer(
      { cert: readFileSync(options.tlsCertFile), key: readFileSync(options.tlsKeyFile), allowHTTP1: true },
      handler,
    ) as unknown as Server;
  } else {
    const h1 = createHttp1Server({ keepAliveTimeout: 65_000, headersTimeout: 30_000, requestTimeout: 60_000 }, handler);
    const h2 = createHttp2Server({}, handler);
    server = createNetServer((socket) => {
      socket.once("readable", () => {
        const head: Buffer | null = socket.read(http2Preface.length) ?? socket.read();
        if (head) socket.unshift(head);
        const isHttp2 = head !== null && head.length >= 3 && http2Preface.subarray(0, Math.min(head.length, http2Preface.length)).equals(head.subarray(0, Math.min(head.length, http2Preface.length)));
        (isHttp2 ? h2 : h1).emit("connection", socket);
      });
    });
  }
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    port,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive sockets would hold close() open; in-flight ones get the grace period.
        const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), graceMs);
        timer.unref();
        for (const socket of sockets) if (!(socket as Socket & { _httpMessage?: unknown })._httpMessage) socket.end();
      }),
  };
}
