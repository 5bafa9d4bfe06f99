import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { createRetryInterceptor, type RetryHooks } from "./retry-interceptor.js";
import { retryPolicyOf, type RetryPolicy } from "./retry-policy.js";

export interface FurikomiClientOptions extends Partial<RetryPolicy>, RetryHooks {
  /** Where furikomi listens, e.g. `https://api.furikomi.example` or `http://localhost:8080`. */
  baseUrl: string;
  /** `sk_test_…` (sandbox) or `sk_live_…`. */
  apiKey: string;
  /** `connect` (default, JSON over HTTP/1.1), `grpc` (HTTP/2) or `grpc-web`. */
  protocol?: "connect" | "grpc" | "grpc-web";
  /** Binary protobuf instead of JSON on the Connect and gRPC-Web protocols. */
  useBinaryFormat?: boolean;
  /** Deadline of a whole call, its retries included: no attempt starts after it. */
  timeoutMs?: number;
  /** Extra interceptors, run inside the retries (once per attempt). */
  interceptors?: Interceptor[];
}

/** Every PaymentService and SandboxService method, typed, with retries and FurikomiErrors. */
export interface FurikomiClient {
  readonly payments: Client<typeof PaymentService>;
  /** Sandbox deployments only (`not_found` in production). */
  readonly sandbox: Client<typeof SandboxService>;
}

/**
 * A client for the merchant API over the generated Connect clients.
 *
 * @example
 * const furikomi = createFurikomiClient({ baseUrl: "http://localhost:8080", apiKey: process.env.FURIKOMI_KEY!, maxAttempts: 5 });
 * const { chargeId } = await furikomi.payments.createOffSessionPaymentAsync({ customerId: "cus-…", charge: { price: 1200 } });
 */
export function createFurikomiClient(options: FurikomiClientOptions): FurikomiClient {
  const policy = retryPolicyOf({
    maxAttempts: options.maxAttempts,
    initialBackoffMs: options.initialBackoffMs,
    maxBackoffMs: options.maxBackoffMs,
  });
  const authenticate: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${options.apiKey}`);
    return next(req);
  };
  const interceptors = [
    createRetryInterceptor(policy, { onRetry: options.onRetry, random: options.random }),
    authenticate,
    ...(options.interceptors ?? []),
  ];
  const transport = transportOf(options, interceptors);
  return Object.freeze({
    payments: createClient(PaymentService, transport),
    sandbox: createClient(SandboxService, transport),
  });
}

function transportOf(options: FurikomiClientOptions, interceptors: Interceptor[]): Transport {
  const common = { baseUrl: options.baseUrl, interceptors, defaultTimeoutMs: options.timeoutMs };
  switch (options.protocol ?? "connect") {
    case "grpc":
      return createGrpcTransport(common);
    case "grpc-web":
      return createGrpcWebTransport({ ...common, httpVersion: "1.1", useBinaryFormat: options.useBinaryFormat });
    case "connect":
      return createConnectTransport({ ...common, httpVersion: "1.1", useBinaryFormat: options.useBinaryFormat });
  }
}
