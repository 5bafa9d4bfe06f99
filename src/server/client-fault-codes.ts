import { Code } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { httpStatusOf } from "../errors.js";

/**
 * connect-es answers a request body it cannot decode — broken protobuf, or a gRPC frame marked
 * compressed with no grpc-encoding — with `internal`. That is the client's fault, and docs/reference/errors.md
 * promises `invalid_argument` 400 for a malformed request, as connect-go does. This
 * wrapper rewrites those two errors on the Connect and gRPC protocols; nothing else is touched.
 */
const clientFaultMessages = [/^parse binary: /, /^received compressed envelope, but do not know how to decompress/];

const isClientFault = (message: string) => clientFaultMessages.some((pattern) => pattern.test(message));

export function withClientFaultCodes(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (request: Parameters<UniversalHandler>[0]) => {
    const response = await handler(request);
    rewriteGrpcStatus(response.header);
    rewriteGrpcStatus(response.trailer);
    return response.status === 500 && response.body ? rewriteConnectError(response) : response;
  };
  return Object.assign(wrapped, handler);
}

/** gRPC: grpc-status 13 (INTERNAL) → 3 (INVALID_ARGUMENT), in the trailers or a trailers-only header. */
function rewriteGrpcStatus(headers: Headers | undefined): void {
  if (headers?.get("grpc-status") !== "13") return;
  if (isClientFault(decodeURIComponent(headers.get("grpc-message") ?? ""))) headers.set("grpc-status", "3");
}

/** Connect: the error JSON of a unary call (one chunk) with code internal → invalid_argument, HTTP 400. */
async function rewriteConnectError(response: UniversalServerResponse): Promise<UniversalServerResponse> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body!) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  const replay = (body: Uint8Array): UniversalServerResponse => ({
    ...response,
    body: (async function* () {
      yield body;
    })(),
  });
  let error: { code?: string; message?: string };
  try {
    error = JSON.parse(bytes.toString("utf8"));
  } catch {
    return replay(bytes);
  }
  if (error.code !== "internal" || !isClientFault(error.message ?? "")) return replay(bytes);
  const body = Buffer.from(JSON.stringify({ ...error, code: "invalid_argument" }));
  if (response.header?.has("content-length")) response.header.set("content-length", String(body.length));
  return { ...replay(body), status: httpStatusOf[Code.InvalidArgument] };
}
