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
