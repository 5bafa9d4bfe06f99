import { createConnectRouter, createContextValues, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { universalResponseToNodeResponse, compressionGzip, compressionBrotli } from "@connectrpc/connect-node";
import type { DescService, FileRegistry } from "@bufbuild/protobuf";
import type { Logger } from "pino";
import type { RequestListener } from "./listener.js";
import { withClientFaultCodes } from "./client-fault-codes.js";
import { universalRequestOf } from "./node-request.js";
import { clientAddressKey } from "../api/request-context.js";
import { createRestRouter } from "./rest-router.js";
import { readMaxBytes, withWireChecks } from "./wire-checks.js";
import { registerReflection } from "./reflection.js";
import { registerHealth } from "./health.js";
import { loadOpenApiDocument } from "./openapi.js";

export interface AppOptions {
  readonly logger: Logger;
  readonly interceptors: Interceptor[];
  /** Registers the payments.v1 services on the router. */
  readonly routes: (router: ConnectRouter) => void;
  /** The payments.v1 services, for the plain HTTP paths and reflection. */
  readonly services: DescService[];
  readonly registry: FileRegistry;
  readonly ready: () => Promise<boolean>;
  /** The Prometheus exposition for GET /metrics. */
  readonly metrics?: () => Promise<{ contentType: string; body: string }>;
  /** Send Strict-Transport-Security: served over TLS, or behind an https PUBLIC_BASE_URL. */
  readonly hsts?: boolean;
  /** Web pages and assets (hosted payment page, dashboard); true when it answered. */
  readonly pages?: (req: Parameters<RequestListener>[0], res: Parameters<RequestListener>[1]) => Promise<boolean>;
}

const apiHeaders = Object.freeze({ "cache-control": "no-store", "x-content-type-options": "nosniff" });
const apiHeaderEntries = Object.entries(apiHeaders);

/** One year; browsers then refuse plain HTTP to this host (docs/reference/security.md). */
const hstsHeader = "max-age=31536000";

/** Connect/gRPC/gRPC-Web RPCs, the plain HTTP paths, health, reflection and pages on one handler. */
export function createApp(options: AppOptions): RequestListener {
  const router = createConnectRouter({
    interceptors: options.interceptors,
    acceptCompression: [compressionGzip, compressionBrotli],
    jsonOptions: { alwaysEmitImplicit: true },
    readMaxBytes,
  });
  options.routes(router);
  const serviceNames = [
    ...options.services.map((s) => s.typeName),
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
  ];
  registerReflection(router, options.registry, serviceNames);
  registerHealth(router, serviceNames, options.ready);

  const handlers = router.handlers.map((h) => withClientFaultCodes(withWireChecks(h)));
  const rpcs = new Map(handlers.map((h) => [h.requestPath, h]));
  const rest = createRestRouter(options.services, handlers, requestContext);
  const openApiDocument = loadOpenApiDocument();

  return (req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (options.hsts) res.setHeader("strict-transport-security", hstsHeader);
    // API and RPC answers (a webhook secret, a charge) are never cached nor sniffed; pages set their own.
    for (const [name, value] of apiHeaderEntries) res.setHeader(name, value);
    const rpc = rpcs.get(path) ?? rpcs.get(customerAppRpcPath(path));
    if (rpc) {
      rpc(universalRequestOf(req, res, requestContext(req)))
        .then((uRes) => universalResponseToNodeResponse(uRes, res))
        .catch((error) => options.logger.warn({ err: error, path }, "rpc stream failed"));
      return;
    }
    void (async () => {
      // Readiness (/readyz, and /healthz as before): the database answers.
      if ((path === "/healthz" || path === "/readyz") && req.method === "GET") {
        const ok = await options.ready();
        res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: ok ? "ok" : "unavailable" }));
        return;
      }
      if (path === "/openapi.json" && req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache" });
        res.end(openApiDocument);
        return;
      }
      if (path === "/metrics" && req.method === "GET" && options.metrics) {
        const { contentType, body } = await options.metrics();
        res.writeHead(200, { "content-type": contentType });
        res.end(body);
        return;
      }
      if (await rest(req, res)) return;
      res.removeHeader("cache-control");
      if (options.pages && (await options.pages(req, res))) return;
      res.setHeader("cache-control", apiHeaders["cache-control"]);
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "not_found", message: `no route for ${req.method} ${path}` }));
    })().catch((error) => {
      options.logger.error({ err: error, path }, "request failed");
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: "internal", message: "internal error" }));
    });
  };
}

/**
 * The customer app's page calls its RPCs under /app (`/app/payments.v1.CustomerAppService/…`), so
 * that its Path=/app cookies reach them (docs/guide/customer-app.md#sessions); other paths are unchanged.
 */
function customerAppRpcPath(path: string): string {
  const prefix = "/app/payments.v1.CustomerAppService/";
  return path.startsWith(prefix) ? path.slice("/app".length) : "";
}

/** Context values every call starts with: the peer's address. */
function requestContext(req: Parameters<RequestListener>[0]) {
  return createContextValues().set(clientAddressKey, req.socket.remoteAddress ?? "");
}
