import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:tls";
import {
  constants,
  createServer as createHttp2Server,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Stream,
} from "node:http2";
import { readFileSync } from "node:fs";
import { limits } from "../domain/limits.js";

export type RequestListener = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

const http2Preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** How long a client may take to send its headers and its request, and stay idle between requests. */
export interface HttpTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly idleMs: number;
}

/** Node advertises 2^32-1 streams per HTTP/2 connection unless told otherwise. */

const defaultTimeouts: HttpTimeouts = {
  headersMs: limits.httpHeadersTimeoutMsDefault,
  requestMs: limits.httpRequestTimeoutMsDefault,
  idleMs: limits.httpIdleTimeoutMsDefault,
};

/**
 * HTTP/2 has no headers or request timeout of its own: an idle session is closed after `idleMs`,
 * and a stream whose request has not fully arrived after `requestMs` is cancelled.
 */
function limitHttp2(server: Http2Server, timeouts: HttpTimeouts): void {
  server.setTimeout(timeouts.idleMs);
  server.on("stream", (stream: ServerHttp2Stream) => {
    const timer = setTimeout(() => stream.close(constants.NGHTTP2_CANCEL), timeouts.requestMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    stream.once("end", clear);
    stream.once("close", clear);
  });
}

/** The HTTP/1.1 server, with the headers, request and keep-alive timeouts Node enforces. */
function http1Server(handler: RequestListener, timeouts: HttpTimeouts) {
  const headersTimeout = Math.min(timeouts.headersMs, timeouts.requestMs);
  const h1 = createHttp1Server(
    {
      keepAliveTimeout: timeouts.idleMs,
      headersTimeout,
      requestTimeout: timeouts.requestMs,
      // Node checks the two timeouts only this often (30 s by default).
      connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(headersTimeout / 4))),
    },
    handler,
  );
  // h1 never listens itself (the outer server hands it sockets), and Node starts enforcing the
  // headers and request timeouts on "listening".
  h1.emit("listening");
  return h1;
}

export interface Listener {
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes idle sockets. */
  close(graceMs?: number): Promise<void>;
}

/**
 * One port for every client: HTTP/1.1 (curl, browsers, the plain HTTP paths) and cleartext
 * HTTP/2 with prior knowledge (gRPC), told apart by the first bytes of the connection. With a
 * certificate the port speaks TLS and ALPN picks h2 or http/1.1; the limits are the same.
 */
export async function listen(
  handler: RequestListener,
  options: {
    port: number;
    host: string;
    tlsCertFile?: string;
    tlsKeyFile?: string;
    httpTimeouts?: HttpTimeouts;
    /** Streams one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). */
    http2MaxConcurrentStreams?: number;
  },
): Promise<Listener> {
  const timeouts = options.httpTimeouts ?? defaultTimeouts;
  const sockets = new Set<Socket>();
  const closeWithServer: Array<() => void> = [];
  // One HTTP/1.1 and one HTTP/2 server, with their limits, whichever way the bytes arrive.
  const h1 = http1Server(handler, timeouts);
  closeWithServer.push(() => h1.close());
  const h2 = createHttp2Server(
    { settings: { maxConcurrentStreams: options.http2MaxConcurrentStreams ?? limits.http2ConcurrentStreamsDefault } },
    handler,
  );
  limitHttp2(h2, timeouts);
  let server: Server;
  if (options.tlsCertFile && options.tlsKeyFile) {
    // TLS: ALPN picks the protocol; the decrypted stream goes to the same two servers.
    const tlsOptions = {
      cert: readFileSync(options.tlsCertFile),
      key: readFileSync(options.tlsKeyFile),
      ALPNProtocols: ["h2", "http/1.1"],
      handshakeTimeout: timeouts.headersMs,
    };
    // The handshake timeout starts with the client's first bytes: a connection that never sends
    // any is cut when its handshake has not finished `headersMs` after it opened.
    const secured = new Set<string>();
    const peer = (socket: Socket) => `${socket.remoteAddress}:${socket.remotePort}`;
    server = createTlsServer(tlsOptions, (socket) => {
      const key = peer(socket);
      secured.add(key);
      socket.once("close", () => secured.delete(key));
      (socket.alpnProtocol === "h2" ? h2 : h1).emit("connection", socket);
    });
    server.on("connection", (raw: Socket) => {
      setTimeout(() => secured.has(peer(raw)) || raw.destroy(), timeouts.headersMs).unref();
    });
  } else {
    // Cleartext: HTTP/2 with prior knowledge is told apart by its preface.
    server = createNetServer({ noDelay: true }, (socket) => {
      // A connection that never sends its first bytes is not allowed to sit there.
      socket.setTimeout(timeouts.headersMs, () => socket.destroy());
      socket.once("readable", () => {
        socket.setTimeout(0);
        const head: Buffer | null = socket.read(http2Preface.length) ?? socket.read();
        if (head) socket.unshift(head);
        const isHttp2 =
          head !== null &&
          head.length >= 3 &&
          http2Preface
            .subarray(0, Math.min(head.length, http2Preface.length))
            .equals(head.subarray(0, Math.min(head.length, http2Preface.length)));
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
    close: (graceMs = limits.serverCloseGraceMs) =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        closeWithServer.forEach((close) => close());
        // Idle keep-alive sockets would hold close() open; in-flight ones get the grace period.
        const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), graceMs);
        timer.unref();
        for (const socket of sockets) if (!(socket as Socket & { _httpMessage?: unknown })._httpMessage) socket.end();
      }),
  };
}
