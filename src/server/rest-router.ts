import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { getOption, hasOption, ScalarType, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues } from "@connectrpc/connect";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { universalResponseToNodeResponse } from "@connectrpc/connect-node";
import { http } from "../../gen/google/api/annotations_pb.js";
import { codeToHttpStatus } from "@connectrpc/connect/protocol-connect";
import { wireProblemKey } from "./wire-checks.js";
import { limits } from "../domain/limits.js";

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;

interface Route {
  readonly verb: string;
  readonly pattern: RegExp;
  readonly params: string[];
  readonly bodyField: string | undefined;
  readonly method: DescMethod;
  readonly handler: UniversalHandler;
}

/**
 * Serves the plain HTTP paths (docs/reference/contract.md#http-paths) from the `google.api.http` options on the service
 * descriptors: one generic router, no hand-written route per path. A request becomes the
 * method's JSON request and runs through the same Connect handler (and so the same
 * interceptors) as an RPC call; errors are the Connect error JSON with its HTTP status.
 */
export function createRestRouter(
  services: DescService[],
  handlers: UniversalHandler[],
  contextOf: (req: NodeRequest) => ContextValues,
) {
  const byPath = new Map(handlers.map((h) => [h.requestPath, h]));
  const routes: Route[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (!hasOption(method, http)) continue;
      const rule = getOption(method, http);
      if (rule.pattern.case === undefined || rule.pattern.case === "custom") continue;
      const handler = byPath.get(`/${service.typeName}/${method.name}`);
      if (!handler) continue;
      const { pattern, params } = compileTemplate(rule.pattern.value);
      routes.push({
        verb: rule.pattern.case.toUpperCase(),
        pattern,
        params,
        bodyField: rule.body || undefined,
        method,
        handler,
      });
    }
  }

  /** Handles the request if a route matches its path; false lets the caller fall through. */
  return async function route(req: NodeRequest, res: NodeResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const candidates = routes.filter((r) => r.pattern.test(url.pathname));
    if (candidates.length === 0) return false;
    const found = candidates.find((r) => r.verb === req.method);
    if (!found) {
      writeError(
        res,
        new ConnectError(`method ${req.method} not allowed on ${url.pathname}`, Code.Unimplemented),
        405,
        {
          allow: candidates.map((r) => r.verb).join(", "),
        },
      );
      return true;
    }
    let message: Record<string, unknown> = {};
    const contextValues = contextOf(req);
    try {
      message = await requestJson(req, url, found);
    } catch (error) {
      const refusal = error instanceof ConnectError ? error : new ConnectError(String(error), Code.InvalidArgument);
      if (refusal.code !== Code.InvalidArgument) {
        writeError(res, refusal);
        return true;
      }
      // Answered by the method like any refused field: its catalogued code in an ErrorInfo.
      contextValues.set(wireProblemKey, { message: refusal.rawMessage, rule: "decode" });
    }
    const header = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (name.startsWith(":") || value === undefined) continue;
      header.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    header.set("content-type", "application/json");
    header.set("connect-protocol-version", "1");
    header.delete("content-length");
    header.delete("content-encoding");
    const universalResponse = await found.handler({
      httpVersion: req.httpVersion,
      method: "POST",
      url: `${url.origin}${found.handler.requestPath}`,
      header,
      body: message as never,
      signal: new AbortController().signal,
      contextValues,
    });
    await universalResponseToNodeResponse(universalResponse, res);
    return true;
  };
}

/** Turns "/v1/charge/{charge}" into a matcher and its parameter names. */
function compileTemplate(template: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = template
    .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
    .replace(/\\?\{([a-z_.]+)(=[^}]*)?\}/g, (_m, name: string) => {
      params.push(name);
      return "([^/]+)";
    });
  return { pattern: new RegExp(`^${source.replace(/\\\{/g, "{")}$`), params };
}

/** Builds the request message JSON from body, path parameters, query string and Idempotency-Key. */
async function requestJson(req: NodeRequest, url: URL, route: Route): Promise<Record<string, unknown>> {
  let message: Record<string, unknown> = {};
  if (route.bodyField) {
    const text = await readBody(req);
    if (text.trim() !== "") {
      const contentType = String(req.headers["content-type"] ?? "application/json");
      if (!/^application\/json\b/i.test(contentType)) {
        throw new ConnectError(`content-type must be application/json, not ${contentType}`, Code.InvalidArgument);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ConnectError("request body is not valid JSON", Code.InvalidArgument);
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new ConnectError("request body must be a JSON object", Code.InvalidArgument);
      }
      message = route.bodyField === "*" ? (parsed as Record<string, unknown>) : { [route.bodyField]: parsed };
    }
  }
  const match = route.pattern.exec(url.pathname)!;
  route.params.forEach((name, i) => (message[name] = decodeURIComponent(match[i + 1])));
  for (const [name, value] of url.searchParams) {
    const field = route.method.input.fields.find((f) => f.name === name || f.jsonName === name);
    if (!field) throw new ConnectError(`unknown query parameter ${name}`, Code.InvalidArgument);
    message[field.jsonName] =
      field.fieldKind === "scalar" && field.scalar === ScalarType.BOOL ? value === "true" || value === "1" : value;
  }
  return message;
}

async function readBody(req: NodeRequest): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limits.httpBodyBytesMax)
      throw new ConnectError(`request body larger than ${limits.httpBodyBytesMax} bytes`, Code.ResourceExhausted);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function writeError(
  res: NodeResponse,
  error: ConnectError,
  status = codeToHttpStatus(error.code),
  headers: Record<string, string> = {},
) {
  const body = JSON.stringify({
    code: Code[error.code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase(),
    message: error.rawMessage,
  });
  (res as ServerResponse).writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}
