import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";

/**
 * The gRPC health service; `ready()` is the same check as GET /healthz (the database answers).
 * It knows the server as a whole ("") and each service it serves; any other name is NOT_FOUND
 * on Check, SERVICE_UNKNOWN on Watch, as the health protocol says.
 */
export function registerHealth(
  router: ConnectRouter,
  services: readonly string[],
  ready: () => Promise<boolean>,
): void {
  const known = new Set(["", ...services]);
  const status = async () =>
    create(HealthCheckResponseSchema, {
      status: (await ready())
        ? HealthCheckResponse_ServingStatus.SERVING
        : HealthCheckResponse_ServingStatus.NOT_SERVING,
    });
  router.service(Health, {
    async check({ service }) {
      if (!known.has(service)) throw new ConnectError(`unknown service ${service}`, Code.NotFound);
      return status();
    },
    async list() {
      const answer = await status();
      return { statuses: Object.fromEntries([...known].filter(Boolean).map((name) => [name, answer])) };
    },
    async *watch({ service }, context) {
      yield known.has(service)
        ? await status()
        : create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN });
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve(), { once: true }));
    },
  });
}
