import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";

/** The gRPC health service; `ready()` is the same check as GET /healthz (the database answers). */
export function registerHealth(router: ConnectRouter, ready: () => Promise<boolean>): void {
  const status = async () =>
    create(HealthCheckResponseSchema, {
      status: (await ready())
        ? HealthCheckResponse_ServingStatus.SERVING
        : HealthCheckResponse_ServingStatus.NOT_SERVING,
    });
  router.service(Health, {
    check: status,
    async *watch(_request, context) {
      yield await status();
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve(), { once: true }));
    },
  });
}
