import { PaymentErrorCode, ErrorType, OnSessionPaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";

/** A catalogued code: an ErrorType or OnSessionPaymentErrorCode name, as docs/reference/contract.md#errors spells it. */
export type CataloguedCode =
  | `ERROR_TYPE_${keyof typeof ErrorType}`
  | `ON_SESSION_PAYMENT_ERROR_CODE_${keyof typeof OnSessionPaymentErrorCode}`;

/** What a payment failure may carry besides its domain code and message. */
export interface PaymentFailureOptions {
  /** The catalogued code merchants branch on. */
  readonly code?: CataloguedCode;
  /** The request field at fault. */
  readonly field?: string;
  /** Ids the client may need to follow up (e.g. chargeId), as google.rpc.ErrorInfo metadata. */
  readonly context?: Readonly<Record<string, string>>;
  /** The field rule that refused the request (a protovalidate rule id, or a wire check): decides the generic code. */
  readonly rule?: string;
}

/**
 * The one way the domain and the flows say "this request fails": the domain code that decides
 * the protocol status, the catalogued code merchants branch on, and a message for humans.
 */
export class PaymentFailure extends Error {
  readonly code?: CataloguedCode;
  readonly field?: string;
  readonly context?: Readonly<Record<string, string>>;
  readonly rule?: string;

  constructor(
    readonly paymentErrorCode: PaymentErrorCode,
    message: string,
    options: PaymentFailureOptions = {},
  ) {
    super(message);
    this.name = "PaymentFailure";
    this.code = options.code;
    this.field = options.field;
    this.context = options.context;
    this.rule = options.rule;
  }
}

/** Default messages of the charge processing error table (docs/reference/contract.md#charge-processing-errors). */
export const errorTypeMessages: Readonly<Record<ErrorType, string>> = Object.freeze({
  [ErrorType.UNSPECIFIED]: "Payment failed. Please contact support.",
  [ErrorType.PAYMENT_VALIDATION_FAILED]: "Invalid payment request. Review input data.",
  [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]: "Payment gateway currently unavailable",
  [ErrorType.PAYMENT_GATEWAY_FAILED]: "Payment gateway rejected request",
  [ErrorType.PAYMENT_CHARGE_FAILED]: "Payment failed. Please contact support.",
  [ErrorType.PAYMENT_CHARGE_REJECTED]: "Customer has not completed KYC",
  [ErrorType.PAYMENT_CHARGE_OVER_LIMIT]: "Payment exceeds allowed limit",
  [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS]: "Customer has insufficient funds",
  [ErrorType.PAYMENT_LINK_EXPIRED]: "Payment link has expired",
  [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND]: "Customer ID not found",
  [ErrorType.PAYMENT_CUSTOMER_INACTIVE]: "Customer is not active. Issue a new payment link for them to complete.",
});

/** The same messages in Japanese: what the dashboard and the result CSV's 理由 column show. */
export const errorTypeMessagesJa: Readonly<Record<ErrorType, string>> = Object.freeze({
  [ErrorType.UNSPECIFIED]: "決済に失敗しました。サポートにお問い合わせください。",
  [ErrorType.PAYMENT_VALIDATION_FAILED]: "決済の内容が正しくありません。入力内容を確認してください。",
  [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]: "決済ゲートウェイが現在利用できません",
  [ErrorType.PAYMENT_GATEWAY_FAILED]: "決済ゲートウェイが依頼を拒否しました",
  [ErrorType.PAYMENT_CHARGE_FAILED]: "決済に失敗しました。サポートにお問い合わせください。",
  [ErrorType.PAYMENT_CHARGE_REJECTED]: "顧客の本人確認が完了していません",
  [ErrorType.PAYMENT_CHARGE_OVER_LIMIT]: "決済金額が上限を超えています",
  [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS]: "口座の残高が不足しています",
  [ErrorType.PAYMENT_LINK_EXPIRED]: "支払いリンクの有効期限が切れています",
  [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND]: "顧客IDが見つかりません",
  [ErrorType.PAYMENT_CUSTOMER_INACTIVE]: "顧客が有効ではありません。新しい支払いリンクを発行してください。",
});

/** The catalogued name of an ErrorType, e.g. ERROR_TYPE_PAYMENT_CHARGE_FAILED. */
export function errorTypeName(errorType: ErrorType): CataloguedCode {
  return `ERROR_TYPE_${ErrorType[errorType]}` as CataloguedCode;
}

/** A field the rules declared in the .proto let through but the domain refuses: VALIDATION_FAILED naming it. */
export function validationFailure(field: string, reason: string): PaymentFailure {
  return new PaymentFailure(PaymentErrorCode.BAD_REQUEST, `${field}: ${reason}`, {
    code: errorTypeName(ErrorType.PAYMENT_VALIDATION_FAILED),
    field,
  });
}
