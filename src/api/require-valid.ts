import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import { ErrorType, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { errorTypeName, PaymentFailure } from "../domain/payment-failure.js";
import { toConnectError } from "../errors.js";

const validator = createValidator();

/**
 * The .proto's rules for a request the validation interceptor does not see (a server-streaming
 * call's message arrives after the interceptors): refused as the interceptor would refuse it,
 * already as the Connect error, since a stream's errors do not pass the error mapping.
 */
export function requireValid<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): void {
  const result = validator.validate(schema, message);
  if (result.kind === "valid") return;
  if (result.kind === "error") throw result.error;
  const [first] = result.error.violations;
  throw toConnectError(
    new PaymentFailure(PaymentErrorCode.BAD_REQUEST, first.message, {
      code: errorTypeName(ErrorType.PAYMENT_VALIDATION_FAILED),
      rule: first.ruleId,
    }),
  );
}
