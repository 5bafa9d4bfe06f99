import http2 from "node:http2";
import { Code } from "@connectrpc/connect";

/** What came back, in protocol-neutral terms. */
export interface Answer {
  httpStatus: number;
  /** Connect code name (invalid_argument, …) or the gRPC status as its Connect code name; "" for success. */
  code: string;
  message: string;
  /** A catalogued error carries an ErrorInfo detail. */
  catalogued: boolean;
}

const codeNames: Record<number, string> = Object.fromEntries(
  Object.entries(Code)
    .filter(([, v]) => typeof v === "number")
    .map(([name, v]) => [v as number, name.replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase())]),
);

/** Connect unary (JSON or binary) and the plain HTTP paths: one HTTP/1.1 request. */
export async function httpCall(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | Uint8Array },
): Promise<Answer> {
  const res = await fetch(url, { method: init.method, headers: init.headers, body: init.body as BodyInit | undefined });
  const text = await res.text();
  if (res.status === 200) return { httpStatus: 200, code: "", message: "", catalogued: false };
  let parsed: { code?: string; message?: string; details?: Array<{ type?: string }> } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { message: text.slice(0, 200) };
  }
  return {
    httpStatus: res.status,
    code: parsed.code ?? `http_${res.status}`,
    message: parsed.message ?? "",
    catalogued: (parsed.details ?? []).some((d) => d.type === "google.rpc.ErrorInfo"),
  };
}

/** One gRPC call over a shared HTTP/2 session; the status comes from the trailers. */
export function grpcCall(
  session: http2.ClientHttp2Session,
  path: string,
  headers: Record<string, string>,
  frame: Uint8Array,
): Promise<Answer> {
  return new Promise((resolve) => {
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    let status = 0;
    let grpcStatus: string | undefined;
    let grpcMessage = "";
    let details = "";
    const take = (h: http2.IncomingHttpHeaders) => {
      if (h["grpc-status"] !== undefined) grpcStatus = String(h["grpc-status"]);
      if (h["grpc-message"] !== undefined) grpcMessage = decodeURIComponent(String(h["grpc-message"]));
      if (h["grpc-status-details-bin"] !== undefined) details = String(h["grpc-status-details-bin"]);
    };
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      take(h);
    });
    stream.on("trailers", take);
    stream.on("data", () => {});
    // A stream the server resets: reported as such, judged by the caller.
    stream.on("error", (error: Error & { code?: string }) =>
      resolve({
        httpStatus: status,
        code: `reset:${error.code ?? error.message}`,
        message: error.message,
        catalogued: false,
      }),
    );
    stream.on("close", () => {
      const code =
        grpcStatus === undefined
          ? `http_${status}`
          : grpcStatus === "0"
            ? ""
            : (codeNames[Number(grpcStatus)] ?? `grpc_${grpcStatus}`);
      // ErrorInfo's type URL appears in the base64 of the status details.
      const catalogued =
        details !== "" && Buffer.from(details, "base64").toString("latin1").includes("google.rpc.ErrorInfo");
      resolve({ httpStatus: status, code, message: grpcMessage, catalogued });
    });
    stream.end(frame);
  });
}

/** One gRPC-Web call (binary, HTTP/1.1): the status is in the headers (trailers-only) or the trailer frame. */
export async function grpcWebCall(url: string, headers: Record<string, string>, frame: Uint8Array): Promise<Answer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", ...headers },
    body: frame as BodyInit,
  });
  const body = Buffer.from(await res.arrayBuffer());
  const trailer = new Map<string, string>();
  res.headers.forEach((value, name) => trailer.set(name, value));
  for (let at = 0; at + 5 <= body.length; ) {
    const flags = body[at];
    const length = body.readUInt32BE(at + 1);
    if (flags & 0x80) {
      for (const line of body
        .subarray(at + 5, at + 5 + length)
        .toString("latin1")
        .split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) trailer.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
    }
    at += 5 + length;
  }
  const grpcStatus = trailer.get("grpc-status");
  const code =
    grpcStatus === undefined
      ? `http_${res.status}`
      : grpcStatus === "0"
        ? ""
        : (codeNames[Number(grpcStatus)] ?? `grpc_${grpcStatus}`);
  const details = trailer.get("grpc-status-details-bin") ?? "";
  return {
    httpStatus: res.status,
    code,
    message: decodeURIComponent(trailer.get("grpc-message") ?? ""),
    catalogued: details !== "" && Buffer.from(details, "base64").toString("latin1").includes("google.rpc.ErrorInfo"),
  };
}
