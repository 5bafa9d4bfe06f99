import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { ErrorType, PaymentErrorCode } from "../../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../../gen/payments/v1/hosted_page_service_pb.js";
import { paymentErrorCodeOfErrorType } from "../../errors.js";
import { hasMessage } from "./page.js";

/** HostedPageService on this server, through the generated client (Connect protocol, JSON). */
export const page = createClient(
  HostedPageService,
  createConnectTransport({ baseUrl: new URL("/", location.href).href }),
);

/** A failed call as the page explains it: its code's message key, the field it names, a lapsed link. */
export class PageError {
  constructor(readonly error: ConnectError | undefined) {}

  /** network, invalid_argument, failed_precondition, … (the keys of rpcError in messages.ts). */
  get code(): string {
    if (!this.error) return "network";
    return Code[this.error.code].replace(/[A-Z]/g, (letter, at: number) => `${at ? "_" : ""}${letter.toLowerCase()}`);
  }

  get messageKey(): string {
    const key = `rpcError.${this.code}`;
    return hasMessage(key) ? key : "rpcError.other";
  }

  /** The request field the server objected to (ErrorInfo metadata, else the "field: …" message prefix). */
  get field(): string | undefined {
    for (const info of this.error?.findDetails(ErrorInfoSchema) ?? []) {
      const field = info.metadata.field;
      if (field) return field.split(".").pop();
    }
    const match = /^([a-z_][a-z0-9_.]*): /.exec(this.error?.rawMessage ?? "");
    return match ? match[1].split(".").pop() : undefined;
  }

  /** The character a name's rule refused, as the server names it (`"ｦ" cannot be used in …`, domain/kana.ts). */
  get refusedCharacter(): string | undefined {
    return /"(.+?)" cannot be used in/u.exec(this.error?.rawMessage ?? "")?.[1];
  }

  /** The link lapsed while the customer was on the page (a step answers ERROR_TYPE_PAYMENT_LINK_EXPIRED). */
  get linkExpired(): boolean {
    const expired = ErrorType[ErrorType.PAYMENT_LINK_EXPIRED];
    return (this.error?.findDetails(ErrorInfoSchema) ?? []).some((info) => info.reason === `ERROR_TYPE_${expired}`);
  }
}

/** Runs a call; a failure becomes a PageError (a network failure has no ConnectError code the server sent). */
export async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const connect = ConnectError.from(error);
    // fetch failing (offline) surfaces as unknown without a response.
    throw new PageError(connect.code === Code.Unknown && /fetch/i.test(connect.rawMessage) ? undefined : connect);
  }
}

/** The plain-language reason for a PaymentErrorCode, or for an ErrorType through the one error table. */
export function reasonKey(code: { paymentErrorCode?: PaymentErrorCode; errorType?: ErrorType }): string {
  const paymentErrorCode =
    code.paymentErrorCode ??
    (code.errorType === undefined ? PaymentErrorCode.UNSPECIFIED : paymentErrorCodeOfErrorType[code.errorType]);
  const key = `paymentError.${PaymentErrorCode[paymentErrorCode]}`;
  return hasMessage(key) ? key : "paymentError.other";
}
