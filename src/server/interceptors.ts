import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { getOption, type DescMessage } from "@bufbuild/protobuf";
import { pathToString } from "@bufbuild/protobuf/reflect";
import { createValidator, type Violation } from "@bufbuild/protovalidate";
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { validation_error_code } from "../../gen/payments/v1/errors_pb.js";
import { ErrorType, OnSessionPaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure, type CataloguedCode } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { toConnectError } from "../errors.js";
import type { MerchantPrincipal } from "../flows/flow-context.js";
import { merchantKey, requestIdKey } from "../api/request-context.js";
import { dashboardPrincipalKey } from "../api/dashboard-session.js";
import { codeName } from "./code-name.js";

/**
 * Assigns the request id, writes the access log, and turns domain failures into Connect errors.
 * One "call" line per call at info: method (`payments.v1.PaymentService/GetCharge`), code, ms,
 * merchantId, requestId; a failure adds its message (and is logged at error with its cause when
 * it is internal). Successful calls are sampled at `sampleRate` (ACCESS_LOG_SAMPLE_RATE; the rest
 * are logged at debug); failures are always logged at info or above.
 */
export function createErrorInterceptor(logger: Logger, sampleRate = 1): Interceptor {
  return (next) => async (req) => {
    const requestId = req.header.get("x-request-id")?.slice(0, 100) || randomUUID();
    req.contextValues.set(requestIdKey, requestId);
    const started = performance.now();
    const access = (code: string) => ({
      requestId,
      method: `${req.service.typeName}/${req.method.name}`,
      code,
      ms: Math.round(performance.now() - started),
      merchantId: req.contextValues.get(merchantKey)?.id ?? req.contextValues.get(dashboardPrincipalKey)?.merchant.id,
    });
    try {
      const res = await next(req);
      res.header.set("x-request-id", requestId);
      if (req.method.deprecated) res.header.set("deprecation", "true");
      // Unsampled successes still reach a debug log.
      logger[sampleRate >= 1 || Math.random() < sampleRate ? "info" : "debug"](access("ok"), "call");
      return res;
    } catch (error) {
      const connectError = toConnectError(error);
      if (connectError) {
        connectError.metadata.set("x-request-id", requestId);
        if (req.method.deprecated) connectError.metadata.set("deprecation", "true");
        // A catalogued internal error (e.g. ON_SESSION_PAYMENT_ERROR_CODE_INTERNAL_ERROR) keeps its cause for the log.
        const cause = error instanceof Error && error.cause !== undefined ? { err: error.cause } : {};
        logger[cause.err ? "error" : "info"](
          { ...access(codeName(connectError.code)), message: connectError.rawMessage, ...cause },
          "call",
        );
        throw connectError;
      }
      // Unexpected: log it whole, tell the client nothing internal.
      logger.error({ ...access("internal"), err: error }, "call");
      throw new ConnectError(`internal error (request id ${requestId})`, Code.Internal, { "x-request-id": requestId });
    }
  };
}

/** Services whose calls need `Authorization: Bearer <API key>`. */
const keyAuthenticatedServices = new Set(["payments.v1.PaymentService", "payments.v1.SandboxService"]);

export function createAuthInterceptor(
  authenticate: (apiKey: string) => Promise<MerchantPrincipal | undefined>,
): Interceptor {
  return (next) => async (req) => {
    if (!keyAuthenticatedServices.has(req.service.typeName)) return next(req);
    const match = /^Bearer\s+(\S+)$/i.exec(req.header.get("authorization") ?? "");
    const merchant = match ? await authenticate(match[1]) : undefined;
    if (!merchant)
      throw new RequestRefusal("unauthenticated", "missing or invalid API key: send Authorization: Bearer sk_test_…");
    req.contextValues.set(merchantKey, merchant);
    return next(req);
  };
}

const catalogued = new Set<string>([
  ...Object.keys(ErrorType)
    .filter((k) => isNaN(Number(k)))
    .map((k) => `ERROR_TYPE_${k}`),
  ...Object.keys(OnSessionPaymentErrorCode)
    .filter((k) => isNaN(Number(k)))
    .map((k) => `ON_SESSION_PAYMENT_ERROR_CODE_${k}`),
]);

/**
 * Enforces the field rules declared in the .proto files (protovalidate) on every request, before
 * any handler runs. A violated rule whose id is a catalogued code reports that code; any other
 * reports the method's `validation_error_code` option, with a message naming the field.
 */
export function createValidationInterceptor(): Interceptor {
  const validator = createValidator();
  return (next) => async (req) => {
    if (req.stream) return next(req);
    const result = validator.validate(req.method.input as DescMessage, req.message as never);
    if (result.kind === "valid") return next(req);
    if (result.kind === "error") throw result.error;
    const violations = result.error.violations;
    const chosen = violations.find((v) => catalogued.has(v.ruleId)) ?? violations[0];
    throw violationFailure(chosen, getOption(req.method, validation_error_code));
  };
}

function violationFailure(violation: Violation, methodCode: string): PaymentFailure {
  const field = pathToString(violation.field);
  const message = field ? `${field}: ${violation.message}` : violation.message;
  const code = (catalogued.has(violation.ruleId) ? violation.ruleId : methodCode) as CataloguedCode | "";
  return new PaymentFailure(PaymentErrorCode.BAD_REQUEST, message, code || undefined, field || undefined);
}
