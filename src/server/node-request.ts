import { Code, ConnectError, type ContextValues } from "@connectrpc/connect";
import type { UniversalServerRequest } from "@connectrpc/connect/protocol";
import { universalRequestFromNodeRequest } from "@connectrpc/connect-node";
import { IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { RequestListener } from "./listener.js";

/**
 * A Node request as connect-es sees it. HTTP/2 goes through connect-node as is. For HTTP/1.1 this
 * is connect-node's adapter but for one thing: connect-node aborts every call's signal when its
 * response closes, finished or not, and an abort without a reason builds a DOMException with its
 * stack trace, about a tenth of a GetCharge's CPU (docs/operations/benchmark.md#per-request-work).
 * Here the signal aborts only when the connection fails or closes before the answer was complete:
 * the one case a handler can act on.
 */
export function universalRequestOf(
  req: Parameters<RequestListener>[0],
  res: Parameters<RequestListener>[1],
  contextValues: ContextValues,
): UniversalServerRequest {
  if (!(req instanceof IncomingMessage)) return universalRequestFromNodeRequest(req, res, undefined, contextValues);
  if (req.headers.host === undefined)
    throw new ConnectError("unable to determine request authority from Node.js server request", Code.Internal);
  const scheme = "encrypted" in req.socket && req.socket.encrypted ? "https" : "http";
  const response = res as ServerResponse;
  const abort = new AbortController();
  const stopListening = () => {
    req.off("error", onError);
    response.off("close", onClose);
  };
  const onError = (error: unknown) => {
    stopListening();
    abort.abort(new ConnectError("the client's connection failed", Code.Aborted, undefined, undefined, error));
  };
  const onClose = () => {
    stopListening();
    if (!response.writableFinished) abort.abort(new ConnectError("the client closed the connection", Code.Canceled));
  };
  req.once("error", onError);
  response.once("close", onClose);
  return {
    httpVersion: req.httpVersion,
    method: req.method ?? "",
    url: new URL(req.url ?? "", `${scheme}://${req.headers.host}`).toString(),
    header: webHeaders(req.headers),
    // An IncomingMessage is an async iterable of its body's chunks.
    body: req,
    signal: abort.signal,
    contextValues,
  };
}

function webHeaders(headers: IncomingHttpHeaders): Headers {
  const header = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (typeof value === "string") header.append(name, value);
    else for (const each of value) header.append(name, each);
  }
  return header;
}
