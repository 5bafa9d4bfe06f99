import { Code } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { codeToHttpStatus } from "@connectrpc/connect/protocol-connect";

/**
 * connect-es answers a request body it cannot decode — broken protobuf, or a gRPC frame marked
 * compressed with no grpc-encoding — with `internal`. That is the client's fault, and docs/reference/errors.md
 * promises `invalid_argument` 400 for a malformed request, as connect-go does. This
 * wrapper rewrites those two errors on the Connect, gRPC and gRPC-Web protocols; nothing else is touched.
 * The wire checks (wire-checks.ts) refuse such a unary body first, with an ErrorInfo; this is the
 * fallback for what they let through (streaming calls, for one).
 */
const clientFaultMessages = [/^parse binary: /, /^received compressed envelope, but do not know how to decompress/];

const isClientFault = (message: string) => clientFaultMessages.some((pattern) => pattern.test(message));

export function withClientFaultCodes(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (request: Parameters<UniversalHandler>[0]) => {
    const response = await handler(request);
    rewriteGrpcStatus(response.header);
    rewriteGrpcStatus(response.trailer);
    if (response.status === 500 && response.body) return rewriteConnectError(response);
    const grpcWeb = /^application\/grpc-web/.test(response.header?.get("content-type") ?? "");
    if (!grpcWeb || !response.body) return response;
    return handler.method.methodKind === "unary" ? rewriteGrpcWebTrailer(response) : rewriteGrpcWebStream(response);
  };
  return Object.assign(wrapped, handler);
}

/** gRPC: grpc-status 13 (INTERNAL) → 3 (INVALID_ARGUMENT), in the trailers or a trailers-only header. */
function rewriteGrpcStatus(headers: Headers | undefined): void {
  if (headers?.get("grpc-status") !== "13") return;
  if (isClientFault(decodeURIComponent(headers.get("grpc-message") ?? ""))) headers.set("grpc-status", "3");
}

/** gRPC-Web (unary): the status sits in the trailer frame at the end of the body. */
async function rewriteGrpcWebTrailer(response: UniversalServerResponse): Promise<UniversalServerResponse> {
  const bytes = await collect(response);
  const { frames, rest } = rewriteFrames(bytes);
  const body = Buffer.concat([...frames, rest]);
  if (response.header?.has("content-length")) response.header.set("content-length", String(body.length));
  return replayed(response, body);
}

/**
 * gRPC-Web (server streaming): the same rewrite frame by frame as the body flows, so a long
 * answer (a charges export) is never held whole.
 */
function rewriteGrpcWebStream(response: UniversalServerResponse): UniversalServerResponse {
  const source = response.body!;
  response.header?.delete("content-length");
  return {
    ...response,
    body: (async function* () {
      let pending: Buffer = Buffer.alloc(0);
      for await (const chunk of source) {
        const { frames, rest } = rewriteFrames(Buffer.concat([pending, chunk]));
        pending = rest;
        if (frames.length > 0) yield Buffer.concat(frames);
      }
      if (pending.length > 0) yield pending;
    })(),
  };
}

/** The complete frames of `bytes`, a client-fault trailer's status 13 made 3, and the bytes of an incomplete frame. */
function rewriteFrames(bytes: Buffer): { frames: Buffer[]; rest: Buffer } {
  const frames: Buffer[] = [];
  let at = 0;
  while (at + 5 <= bytes.length && at + 5 + bytes.readUInt32BE(at + 1) <= bytes.length) {
    const length = bytes.readUInt32BE(at + 1);
    frames.push(withFixedTrailer(bytes.subarray(at, at + 5 + length)));
    at += 5 + length;
  }
  return { frames, rest: bytes.subarray(at) };
}

/** A gRPC-Web frame, its status rewritten when it is the trailer frame of a client fault. */
function withFixedTrailer(frame: Buffer): Buffer {
  if (!(frame[0] & 0x80)) return frame;
  const text = frame.subarray(5).toString("latin1");
  const message = /grpc-message: ?([^\r\n]*)/.exec(text)?.[1] ?? "";
  if (!/grpc-status: ?13\r\n/.test(text) || !isClientFault(decodeURIComponent(message))) return frame;
  const fixed = Buffer.from(text.replace(/grpc-status: ?13/, "grpc-status: 3"), "latin1");
  const head = Buffer.alloc(5);
  head[0] = frame[0];
  head.writeUInt32BE(fixed.length, 1);
  return Buffer.concat([head, fixed]);
}

async function collect(response: UniversalServerResponse): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body!) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function replayed(response: UniversalServerResponse, body: Uint8Array): UniversalServerResponse {
  return {
    ...response,
    body: (async function* () {
      yield body;
    })(),
  };
}

/** Connect: the error JSON of a unary call (one chunk) with code internal → invalid_argument, HTTP 400. */
async function rewriteConnectError(response: UniversalServerResponse): Promise<UniversalServerResponse> {
  const bytes = await collect(response);
  const replay = (body: Uint8Array) => replayed(response, body);
  let error: { code?: string; message?: string };
  try {
    error = JSON.parse(bytes.toString("utf8"));
  } catch {
    return replay(bytes);
  }
  if (error.code !== "internal" || !isClientFault(error.message ?? "")) return replay(bytes);
  const body = Buffer.from(JSON.stringify({ ...error, code: "invalid_argument" }));
  if (response.header?.has("content-length")) response.header.set("content-length", String(body.length));
  return { ...replay(body), status: codeToHttpStatus(Code.InvalidArgument) };
}
