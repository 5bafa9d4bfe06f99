import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import {
  CustomerAppService,
  CustomerContractSchema,
  CustomerMerchantSchema,
  CustomerTransactionSchema,
  ReceiptSchema,
  type CustomerMerchant,
  type CustomerTransaction,
} from "../../gen/payments/v1/customer_app_service_pb.js";
import { awaitingCustomer, hasReceipt } from "../domain/charge.js";
import { includedConsumptionTax, standardTaxRatePercent } from "../domain/receipt.js";
import { chargeStateOf } from "../domain/display-format.js";
import { refundedIncludingPending } from "../domain/refund.js";
import { debitNoticeWording, failureWording, refundStatusWording } from "../domain/customer-wording.js";
import { sessionLimits } from "../domain/dashboard-session.js";
import {
  customerMerchants,
  customerReceipt,
  customerTransactions,
  customerUpcomingDebits,
  requestStop,
  type CustomerMerchantView,
  type CustomerTransactionView,
} from "../flows/customer-app.js";
import {
  authenticateCustomerSession,
  sendSignInCode,
  signOutCustomer,
  verifySignInCode,
} from "../flows/customer-app-sign-in.js";
import { customerSubscriptions } from "../flows/customer-subscriptions.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  createCustomerSessionInterceptor,
  customerAppCookies,
  customerPrincipalOf,
  customerSessionCookieHeaders,
  type CustomerAppCookies,
} from "./customer-app-session.js";
import { encodeCustomerSubscription } from "./customer-subscription-encode.js";
import { encodeStopRequest } from "./encode.js";

/** Secure cookies when the server speaks TLS or sits behind an https public URL (as the dashboard's). */
function cookiesFor(ctx: FlowContext): CustomerAppCookies {
  const tls = Boolean(ctx.config.tlsCertFile && ctx.config.tlsKeyFile) || ctx.config.publicBaseUrl.startsWith("https:");
  return customerAppCookies(tls);
}

/** The interceptor that authenticates CustomerAppService calls (wired by the composition root). */
export function createCustomerAuthInterceptor(ctx: FlowContext) {
  return createCustomerSessionInterceptor(
    (token, csrf) => authenticateCustomerSession(ctx, token, csrf),
    cookiesFor(ctx),
  );
}

/** CustomerAppService (docs/guide/customer-app.md): decode, call a flow, encode. */
export function createCustomerAppService(ctx: FlowContext): ServiceImpl<typeof CustomerAppService> {
  const cookies = cookiesFor(ctx);
  const setCookies = (context: HandlerContext, values: string[]) => {
    for (const value of values) context.responseHeader.append("set-cookie", value);
  };
  return {
    async sendSignInCode(req) {
      const sent = await sendSignInCode(ctx, req.email);
      return {
        expiresAt: timestampFromDate(sent.expiresAt),
        resendAvailableAt: timestampFromDate(sent.resendAvailableAt),
      };
    },
    async verifySignInCode(req, context) {
      const outcome = await verifySignInCode(ctx, req.email, req.code);
      if (!outcome.session) return { verified: false, attemptsLeft: outcome.attemptsLeft, csrfToken: "" };
      const { sessionToken, principal } = outcome.session;
      setCookies(
        context,
        customerSessionCookieHeaders(cookies, {
          token: sessionToken,
          csrfToken: principal.csrfToken,
          maxAgeSeconds: Math.floor(sessionLimits.absoluteMs / 1000),
        }),
      );
      return { verified: true, attemptsLeft: outcome.attemptsLeft, csrfToken: principal.csrfToken };
    },
    async getCustomerSession(_req, context) {
      const principal = customerPrincipalOf(context);
      return {
        email: principal.email,
        csrfToken: principal.csrfToken,
        expiresAt: timestampFromDate(principal.expiresAt),
      };
    },
    async signOutCustomer(_req, context) {
      await signOutCustomer(ctx, customerPrincipalOf(context));
      setCookies(context, customerSessionCookieHeaders(cookies, undefined));
      return {};
    },
    async listCustomerMerchants(_req, context) {
      const merchants = await customerMerchants(ctx, customerPrincipalOf(context));
      return { merchants: merchants.map(encodeCustomerMerchant) };
    },
    async listCustomerTransactions(req, context) {
      const page = await customerTransactions(ctx, customerPrincipalOf(context), req);
      return { transactions: page.transactions.map(encodeCustomerTransaction), nextPageToken: page.nextPageToken };
    },
    async listCustomerSubscriptions(_req, context) {
      const subscriptions = await customerSubscriptions(ctx, customerPrincipalOf(context));
      return { subscriptions: subscriptions.map(encodeCustomerSubscription) };
    },
    async listUpcomingDebits(_req, context) {
      const upcoming = await customerUpcomingDebits(ctx, customerPrincipalOf(context));
      return {
        debits: upcoming.map(({ charge, debitDate, merchantName }) => {
          const notice = debitNoticeWording(debitDate, charge.amount);
          return {
            chargeId: charge.id,
            merchantId: charge.merchantId,
            merchantName,
            description: charge.description,
            amount: charge.amount,
            currency: "JPY",
            debitDate,
            noticeJa: notice.ja,
            noticeEn: notice.en,
          };
        }),
      };
    },
    async getReceipt(req, context) {
      const principal = customerPrincipalOf(context);
      const receipt = await customerReceipt(ctx, principal, req.chargeId);
      const { charge, merchant, issuer } = receipt;
      return {
        receipt: create(ReceiptSchema, {
          chargeId: charge.id,
          merchantName: merchant.name,
          merchantSupportEmail: merchant.supportEmail,
          merchantSupportPhone: merchant.supportPhone,
          customerEmail: principal.email,
          description: charge.description,
          amount: charge.amount,
          currency: "JPY",
          paidAt: timestampFromDate(charge.succeededAt ?? charge.createdAt),
          refundedAmount: receipt.refundedAmount,
          refundPendingAmount: receipt.refundPendingAmount,
          issuedAt: timestampFromDate(receipt.issuedAt),
          customerName: receipt.addressee,
          issuerName: issuer.name,
          issuerAddress: issuer.address,
          invoiceRegistrationNumber: issuer.invoiceRegistrationNumber,
          taxRatePercent: standardTaxRatePercent,
          consumptionTax: includedConsumptionTax(charge.amount),
        }),
      };
    },
    async requestStop(req, context) {
      const outcome = await requestStop(ctx, customerPrincipalOf(context), req.contractId, req.reason);
      return { stopRequest: encodeStopRequest(outcome.stopRequest), created: outcome.created };
    },
  };
}

function encodeCustomerMerchant({ merchant, contracts }: CustomerMerchantView): CustomerMerchant {
  return create(CustomerMerchantSchema, {
    merchantId: merchant.id,
    name: merchant.name,
    logoUrl: merchant.logoUrl,
    supportEmail: merchant.supportEmail,
    supportPhone: merchant.supportPhone,
    supportUrl: merchant.supportUrl,
    contracts: contracts.map(({ contract, mandate, stopRequest }) =>
      create(CustomerContractSchema, {
        contractId: contract.id,
        status: contract.status,
        createdAt: timestampFromDate(contract.createdAt),
        account: mandate?.summary,
        consentedAt: mandate ? timestampFromDate(mandate.acceptedAt) : undefined,
        stopRequest: stopRequest && encodeStopRequest(stopRequest),
      }),
    ),
  });
}

function encodeCustomerTransaction({
  charge,
  merchantName,
  refunds,
  debitDate,
}: CustomerTransactionView): CustomerTransaction {
  const failed = charge.status === ChargeStatus.FAILURE;
  return create(CustomerTransactionSchema, {
    chargeId: charge.id,
    merchantId: charge.merchantId,
    merchantName,
    description: charge.description,
    initialAmount: charge.amount + charge.discount,
    discount: charge.discount,
    finalAmount: charge.amount,
    currency: "JPY",
    status: charge.status,
    statusLabel: chargeStateOf({
      status: charge.status,
      awaitingCustomer: awaitingCustomer(charge),
      refundedAmount: refundedIncludingPending(charge),
      refundPending: refunds.some((refund) => refund.status === RefundStatus.PENDING),
    }).ja,
    createdAt: timestampFromDate(charge.createdAt),
    failure: failed
      ? {
          errorType: charge.errorType,
          messageJa: failureWording[charge.errorType].ja,
          messageEn: failureWording[charge.errorType].en,
        }
      : undefined,
    refunds: refunds.map((refund) => ({
      refundId: refund.id,
      amount: refund.amount,
      status: refund.status,
      statusLabel: refundStatusWording[refund.status].ja,
      createdAt: timestampFromDate(refund.createdAt),
    })),
    receiptAvailable: hasReceipt(charge.status),
    debitDate,
  });
}
