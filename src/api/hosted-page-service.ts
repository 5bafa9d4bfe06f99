import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import type { ErrorBody } from "../../gen/payments/v1/errors_pb.js";
import {
  HostedMerchantSchema,
  HostedPaymentErrorSchema,
  type HostedMerchant,
  type HostedPageService,
  type HostedPaymentError,
} from "../../gen/payments/v1/hosted_page_service_pb.js";
import { encodeErrorBody } from "./encode.js";
import type { LinkOutcome } from "../domain/payment-link.js";
import type { FlowContext } from "../flows/flow-context.js";
import { clientAddressKey } from "./request-context.js";
import {
  initiatePayment,
  linkBankAccount,
  submitKyc,
  type HostedMerchantView,
  type HostedRefusal,
} from "../flows/hosted-page.js";
import { approvePayment } from "../flows/hosted-page-approval.js";
import { searchBankDirectory, searchBranchDirectory } from "../flows/hosted-page-bank-directory.js";
import { sendTwoFactorCode, verifyTwoFactorCode } from "../flows/hosted-page-code.js";

/** HostedPageService: the customer-facing steps of a payment link, authorised by its token. */
export function createHostedPageService(ctx: FlowContext): ServiceImpl<typeof HostedPageService> {
  return {
    async initiatePayment(req) {
      const answer = await initiatePayment(ctx, req.token);
      if ("error" in answer) return { result: { outcome: { case: "error", value: encodeRefusal(answer.error) } } };
      const { session } = answer;
      return {
        result: {
          outcome: {
            case: "session",
            value: {
              merchant: encodeMerchant(session.merchant),
              amount: session.amount,
              currency: "JPY",
              description: session.description,
              workflow: session.workflow,
              expiresAt: timestampFromDate(session.expiresAt),
              emailHint: session.emailHint,
              twoFactorVerified: session.twoFactorVerified,
              needsBankLink: session.needsBankLink,
              bankLinked: session.bankLinked,
              needsKyc: session.needsKyc,
              kycSubmitted: session.kycSubmitted,
              completed: session.completed,
              redirectUrl: session.redirectUrl,
              chargeStatus: session.outcome.chargeStatus,
              error: encodeFailure(session.outcome),
              detailsWithheld: session.detailsWithheld,
              bankAccount: session.bankAccount,
              terms: session.terms,
              chargeId: session.chargeId,
              contractId: session.contractId,
              accountHolder: session.accountHolder,
              completedAt: session.completedAt ? timestampFromDate(session.completedAt) : undefined,
              debitTiming: session.debitTiming,
              debitDate: session.debitDate,
            },
          },
        },
      };
    },
    async sendTwoFactorCode(req) {
      const sent = await sendTwoFactorCode(ctx, req.token);
      return {
        emailHint: sent.emailHint,
        expiresAt: timestampFromDate(sent.expiresAt),
        resendAvailableAt: timestampFromDate(sent.resendAvailableAt),
      };
    },
    async verifyTwoFactorCode(req) {
      return verifyTwoFactorCode(ctx, req.token, req.code);
    },
    async searchBanks(req) {
      return searchBankDirectory(ctx, req.token, req.query, req.limit);
    },
    async searchBranches(req) {
      return searchBranchDirectory(ctx, req.token, req.bankCode, req.query, req.limit);
    },
    async linkBankAccount(req, call) {
      const chosen = await linkBankAccount(ctx, req.token, {
        bankCode: req.bankCode,
        branchCode: req.branchCode,
        accountType: req.accountType,
        accountNumber: req.accountNumber,
        accountHolder: req.accountHolder,
        pageOrigin: call.requestHeader.get("origin") ?? undefined,
      });
      return {
        linked: chosen.linked,
        bankRedirectUrl: chosen.redirectUrl,
        account: chosen.summary,
        verification: chosen.method,
      };
    },
    async submitKyc(req) {
      const kycStatus = await submitKyc(
        ctx,
        req.token,
        {
          name: req.name,
          katakanaLastName: req.katakanaLastName,
          katakanaFirstName: req.katakanaFirstName,
          birthDate: req.birthDate,
          address: req.address,
          gender: req.gender,
        },
        { decide: true, method: req.method },
      );
      return { kycStatus };
    },
    async approvePayment(req, call) {
      const answer = await approvePayment(ctx, req.token, {
        termsVersion: req.termsVersion,
        clientAddress: call.values.get(clientAddressKey),
        userAgent: call.requestHeader.get("user-agent") ?? "",
      });
      if ("error" in answer) return { result: { outcome: { case: "error", value: encodeRefusal(answer.error) } } };
      const { success } = answer;
      return {
        result: {
          outcome: {
            case: "success",
            value: {
              chargeStatus: success.outcome.chargeStatus,
              redirectUrl: success.redirectUrl,
              chargeId: success.chargeId,
              contractId: success.contractId,
              error: encodeFailure(success.outcome),
              completedAt: success.completedAt ? timestampFromDate(success.completedAt) : undefined,
              debitDate: success.debitDate,
            },
          },
        },
      };
    },
  };
}

function encodeMerchant(merchant: HostedMerchantView): HostedMerchant {
  return create(HostedMerchantSchema, {
    token: merchant.token,
    name: merchant.name,
    logoUrl: merchant.logoUrl,
    redirect: { successUrl: merchant.successUrl, failureUrl: merchant.failureUrl },
    supportEmail: merchant.supportEmail,
    supportPhone: merchant.supportPhone,
    supportUrl: merchant.supportUrl,
  });
}

function encodeRefusal(refusal: HostedRefusal): HostedPaymentError {
  return create(HostedPaymentErrorSchema, {
    errorCode: refusal.paymentErrorCode,
    errorMessage: refusal.message,
    merchant: refusal.merchant && encodeMerchant(refusal.merchant),
    redirectUrl: refusal.redirectUrl ?? "",
  });
}

/** The failure reason, set only when the charge failed (as on a charge). */
export function encodeFailure(outcome: LinkOutcome): ErrorBody | undefined {
  if (outcome.chargeStatus !== ChargeStatus.FAILURE) return undefined;
  return encodeErrorBody(outcome.errorType, outcome.errorMessage);
}
