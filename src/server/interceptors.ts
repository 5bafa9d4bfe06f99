import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { getOption, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { pathToString } from "@bufbuild/protobuf/reflect";
import { createValidator } from "@bufbuild/protovalidate";
import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { validation_error_code } from "../../gen/payments/v1/errors_pb.js";
import { ErrorType, OnSessionPaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { PaymentFailure, errorTypeName, type CataloguedCode } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { toConnectError, withErrorInfo } from "../errors.js";
import type { MerchantPrincipal } from "../flows/flow-context.js";
import { merchantKey, requestIdKey } from "../api/request-context.js";
import { dashboardPrincipalKey } from "../api/dashboard-session.js";
import { codeName } from "./code-name.js";
import { textProblem, wireProblemKey } from "./wire-checks.js";

/** A caller's request id, echoed only when short and plain (it reaches logs and headers); else a fresh one. */
export function requestIdOf(given: string | null): string {
  return given && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : randomUUID();
}

/**
 * Assigns the request id, writes the access log, and turns domain failures into Connect errors.
 * One "call" line per call at info: method (`payments.v1.PaymentService/GetCharge`), code, ms,
 * merchantId, requestId; a failure adds its message (and is logged at error with its cause when
 * it is internal). Successful calls are sampled at `sampleRate` (ACCESS_LOG_SAMPLE_RATE; the rest
 * are logged at debug); failures are always logged at info or above.
 */
export function createErrorInterceptor(logger: Logger, sampleRate = 1): Interceptor {
  // A success's line holds five plain values (strings, a number) at its top level, which no
  // redaction path can match (they name nested keys: logger.ts): the same line without the
  // redaction's walk over it. A failure's line, which may carry an error's fields, is redacted.
  const successLog = logger.child({}, { redact: [] });
  return (next) => async (req) => {
    const requestId = requestIdOf(req.header.get("x-request-id"));
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
      successLog[sampleRate >= 1 || Math.random() < sampleRate ? "info" : "debug"](access("ok"), "call");
      return res;
    } catch (error) {
      const converted = toConnectError(error);
      if (converted) {
        const connectError = withErrorInfo(converted, validationCodeOf(req.method));
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

/** `keyServices`: the services whose calls need `Authorization: Bearer <API key>` (composition-root's list). */
export function createAuthInterceptor(
  authenticate: (apiKey: string) => Promise<MerchantPrincipal | undefined>,
  keyServices: ReadonlySet<string>,
): Interceptor {
  return (next) => async (req) => {
    if (!keyServices.has(req.service.typeName)) return next(req);
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
    .filter((k) => Number.isNaN(Number(k)))
    .map((k) => `ERROR_TYPE_${k}`),
  ...Object.keys(OnSessionPaymentErrorCode)
    .filter((k) => Number.isNaN(Number(k)))
    .map((k) => `ON_SESSION_PAYMENT_ERROR_CODE_${k}`),
]);

/**
 * Enforces the field rules declared in the .proto files (protovalidate) on every request, before
 * any handler runs, after the wire checks (a body the wire checks refused, and NUL or invalid
 * UTF-8 in any string field). A violated rule whose id is a catalogued code reports that code; any
 * other reports the method's `validation_error_code` option, with a message naming the field.
 */
export function createValidationInterceptor(): Interceptor {
  const validator = createValidator();
  return (next) => async (req) => {
    if (req.stream) return next(req);
    const methodCode = validationCodeOf(req.method);
    const problem = req.contextValues.get(wireProblemKey) ?? textProblem(req.method.input, req.message);
    if (problem) throw requestFailure(methodCode, problem.message, problem.field, problem.rule);
    const result = validator.validate(req.method.input as DescMessage, req.message as never);
    if (result.kind === "valid") return next(req);
    if (result.kind === "error") throw result.error;
    const violations = result.error.violations;
    const chosen = violations.find((v) => catalogued.has(v.ruleId)) ?? violations[0];
    const field = pathToString(chosen.field);
    const code = catalogued.has(chosen.ruleId) ? (chosen.ruleId as CataloguedCode) : methodCode;
    throw requestFailure(code, field ? `${field}: ${chosen.message}` : chosen.message, field, chosen.ruleId);
  };
}

/**
 * The method's `validation_error_code`, or VALIDATION_FAILED for a method that declares none; read
 * once per method (reading an option builds an extension container, on every call otherwise).
 */
function validationCodeOf(method: DescMethod): CataloguedCode {
  let code = validationCodes.get(method);
  if (!code) {
    code = (getOption(method, validation_error_code) ||
      errorTypeName(ErrorType.PAYMENT_VALIDATION_FAILED)) as CataloguedCode;
    validationCodes.set(method, code);
  }
  return code;
}

const validationCodes = new WeakMap<DescMethod, CataloguedCode>();

function requestFailure(
  code: CataloguedCode,
  message: string,
  field: string | undefined,
  rule: string,
): PaymentFailure {
  return new PaymentFailure(PaymentErrorCode.BAD_REQUEST, message, { code, field: field || undefined, rule });
}
