import { Code, ConnectError, type Interceptor, type UnaryRequest, type UnaryResponse } from "@connectrpc/connect";
import { errorFromJson } from "@connectrpc/connect/protocol-connect";
import { fromJson, getOption, toJson, type DescField, type DescMethod, type JsonValue } from "@bufbuild/protobuf";
import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { validation_error_code } from "../../gen/payments/v1/errors_pb.js";
import { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { SubscriptionService } from "../../gen/payments/v1/subscription_service_pb.js";
import { idempotencyLeaseMs, requestFingerprint, type IdempotencyRecord } from "../domain/idempotency.js";
import { PaymentFailure, type CataloguedCode } from "../domain/payment-failure.js";
import { idempotencyKeyPath, keyAt, withoutKey } from "../domain/method-idempotency.js";
import { storedErrorAnswer } from "../errors.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  finishIdempotentRequest,
  renewIdempotentRequest,
  runIdempotent,
  settleFailedRequest,
  type IdempotencyScope,
} from "../flows/idempotency.js";
import { idempotencyScopeKey, merchantKey } from "../api/request-context.js";
import type { Logger } from "pino";
import { limits } from "../domain/limits.js";

/** Set on a response that is the stored first response of an earlier request with the same key. */
export const replayedHeader = "idempotent-replayed";

const jsonOptions = { alwaysEmitImplicit: true } as const;

/**
 * The keyed methods whose flow binds the key (bindIdempotentResource) in the transaction of its
 * first side effect, before any bank call or other effect outside it: a first use of a key is
 * claimed in that transaction (docs/architecture.md#durability). A keyed method not listed here
 * claims its key first, in a transaction of its own; a new one is added only once its flow binds so.
 */
const claimInFlowMethods: ReadonlySet<string> = new Set(
  [
    PaymentService.method.createOnSessionPayment,
    PaymentService.method.createOffSessionPaymentAsync,
    PaymentService.method.createOffSessionPayment,
    PaymentService.method.refund,
    DashboardService.method.refundCharge,
    DashboardService.method.createBillingPlan,
    DashboardService.method.updateBillingPlanPrice,
    DashboardService.method.createBillingSubscription,
    SandboxService.method.withdraw,
    SubscriptionService.method.createPlan,
    SubscriptionService.method.updatePlanPrice,
    SubscriptionService.method.createSubscription,
  ].map(methodName),
);

/**
 * Idempotency for every create call (docs/reference/contract.md#idempotency), once for all methods:
 * a method whose request holds a field marked `(payments.v1.idempotency_key)`, at any depth,
 * runs under its key (the field, or else the `Idempotency-Key` header). The same key and
 * request answer the first response again, errors included; another request with the key is
 * refused (invalid_argument), a duplicate of one in flight too (aborted). Runs after the
 * validation interceptor, so a request rejected by validation stores nothing; nor does any
 * refusal decided before the flow created something (settleFailedRequest).
 */
export function createIdempotencyInterceptor(ctx: FlowContext, logger: Logger): Interceptor {
  const keyPaths = new Map<DescMethod, readonly DescField[] | undefined>();
  const keyPathOf = (method: DescMethod) => {
    if (!keyPaths.has(method)) keyPaths.set(method, idempotencyKeyPath(method));
    return keyPaths.get(method);
  };
  return (next) => async (req) => {
    const merchant = req.contextValues.get(merchantKey);
    const path = req.stream ? undefined : keyPathOf(req.method);
    if (req.stream || !path || !merchant) return next(req);
    const key = keyOf(req, path);
    if (!key) return next(req);

    const method = methodName(req.method);
    const messageJson = withoutKey(toJson(req.method.input, req.message) as Record<string, JsonValue>, path);
    const request = { merchantId: merchant.id, key, method, requestHash: requestFingerprint(method, messageJson) };
    return runIdempotent(ctx, request, claimInFlowMethods.has(method), async (start) =>
      "replay" in start ? replay(req, start.replay) : runUnder(next, req, method, start.run),
    );
  };

  /** Runs the call under its key's scope, keeping the lease, and stores or settles its answer. */
  async function runUnder(
    next: Parameters<Interceptor>[0],
    req: UnaryRequest,
    method: string,
    scope: IdempotencyScope,
  ): ReturnType<typeof next> {
    req.contextValues.set(idempotencyScopeKey, scope);
    // A renewal or a settlement that fails is logged, not thrown: the call's own answer matters more,
    // and an unrenewed lease only lets a retry take the key over (docs/reference/contract.md#idempotency).
    const renewal = setInterval(
      () =>
        void renewIdempotentRequest(ctx, scope).catch((err) =>
          logger.warn({ err, method }, "idempotency lease renewal failed"),
        ),
      idempotencyLeaseMs / 3,
    );
    renewal.unref();
    try {
      const res = await next(req);
      await finishIdempotentRequest(ctx, scope, {
        json: JSON.stringify(toJson(req.method.output, res.message as never, jsonOptions)),
        httpStatus: 200,
      });
      return res;
    } catch (error) {
      await settleFailedRequest(ctx, scope, storedErrorAnswer(error)).catch((err) =>
        logger.warn({ err, method }, "idempotency key of a failed call not settled"),
      );
      throw error;
    } finally {
      clearInterval(renewal);
    }
  }
}

/** payments.v1.PaymentService/CreateOffSessionPaymentAsync, …: the name a key's record keeps. */
function methodName(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}

function keyOf(req: UnaryRequest, path: readonly DescField[]): string {
  const fromField = keyAt(req.message, path);
  if (fromField !== "") return fromField;
  // RPC callers may send the header too (the plain HTTP paths copy it into the field already).
  const fromHeader = req.header.get("idempotency-key") ?? "";
  if (fromHeader.length > limits.idempotencyKeyLengthMax) {
    const code = getOption(req.method, validation_error_code) as CataloguedCode | "";
    throw new PaymentFailure(
      PaymentErrorCode.BAD_REQUEST,
      `idempotency_key: value length must be at most ${limits.idempotencyKeyLengthMax} characters`,
      { code: code || undefined, field: "idempotency_key" },
    );
  }
  return fromHeader;
}

function replay(req: UnaryRequest, record: IdempotencyRecord): UnaryResponse {
  const stored = JSON.parse(record.responseJson) as JsonValue;
  if (record.httpStatus !== 200) {
    throw errorFromJson(
      stored,
      { [replayedHeader]: "true" },
      new ConnectError(`stored response of idempotency key ${record.key} is unreadable`, Code.Internal),
    );
  }
  return {
    stream: false,
    service: req.service,
    method: req.method,
    ...replayMetadata(req),
    message: fromJson(req.method.output, stored),
  } as UnaryResponse;
}

/**
 * The headers and trailers of a replayed answer. They replace the ones the protocol prepared
 * (the handler did not run), so they carry what each protocol needs: the content type the
 * request was sent in (Connect, gRPC and gRPC-Web answer in it), and for gRPC the OK status.
 */
function replayMetadata(req: UnaryRequest): { header: Headers; trailer: Headers } {
  const contentType = req.header.get("content-type") ?? "application/json";
  const header = new Headers({ "content-type": contentType, [replayedHeader]: "true" });
  const trailer = new Headers(contentType.startsWith("application/grpc") ? { "grpc-status": "0" } : {});
  return { header, trailer };
}
