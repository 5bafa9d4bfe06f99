import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { KycStatus } from "../../gen/payments/v1/enums_pb.js";
import { BankAccountSchema, SandboxService, type BankAccount } from "../../gen/payments/v1/sandbox_service_pb.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import type { FlowContext } from "../flows/flow-context.js";
import { configureKycReview, decideKyc } from "../flows/kyc-review.js";
import { configureSimulatedZenginBank } from "../flows/zengin-sandbox-settings.js";
import {
  completePayment,
  configureBankAccount,
  expirePaymentLinkNow,
  getBankAccount,
  readMailbox,
  setBankMaintenance,
  type SimulatedAccount,
} from "../flows/sandbox.js";
import { merchantOf } from "./request-context.js";
import { encodeCustomer } from "./encode.js";
import { encodeFailure } from "./hosted-page-service.js";

type SandboxImpl = Partial<ServiceImpl<typeof SandboxService>>;

/**
 * SandboxService (sandbox mode only): drives the simulated bank, KYC, payment links and the
 * mailbox for the calling merchant. Withdraw, SettleRefunds, SendTestEvent and AdvanceClock
 * belong to other modules and are merged in by the composition root.
 */
export function createSandboxService(ctx: FlowContext): SandboxImpl {
  return {
    async completePayment(req, context) {
      const done = await completePayment(ctx, merchantOf(context).id, req.paymentLinkUrl, {
        approve: req.approve ?? true,
        kyc: req.kyc,
        accountNumber: req.accountNumber,
        bankCode: req.bankCode,
        accountType: req.accountType,
        initialBalance: req.initialBalance === undefined ? undefined : Number(req.initialBalance),
      });
      return {
        chargeStatus: done.outcome.chargeStatus,
        chargeId: done.chargeId,
        customerId: done.customerId,
        contractId: done.contractId,
        redirectUrl: done.redirectUrl,
        errorCode: done.paymentErrorCode,
        errorMessage: done.errorMessage,
        error: encodeFailure(done.outcome),
      };
    },
    async configureBankAccount(req, context) {
      const account = await configureBankAccount(ctx, merchantOf(context).id, req.customerId, {
        balance: req.balance === undefined ? undefined : Number(req.balance),
        quota: req.quota === undefined ? undefined : Number(req.quota),
        underMaintenance: req.underMaintenance,
        reject: req.reject,
        latencyMs: req.latencyMs,
        maintenanceUntil: req.maintenanceUntil && timestampDate(req.maintenanceUntil),
      });
      return { account: encodeAccount(account) };
    },
    async getBankAccount(req, context) {
      const { current, accounts } = await getBankAccount(ctx, merchantOf(context).id, req.customerId);
      return { account: encodeAccount(current), accounts: accounts.map(encodeAccount) };
    },
    async setBankMaintenance(req, context) {
      const underMaintenance = await setBankMaintenance(
        ctx,
        merchantOf(context).id,
        req.underMaintenance,
        req.until && timestampDate(req.until),
      );
      return { underMaintenance };
    },
    async decideKyc(req, context) {
      const decision = req.decision as KycStatus.APPROVED | KycStatus.DENIED;
      return {
        customer: encodeCustomer(await decideKyc(ctx, merchantOf(context).id, req.customerId, decision, req.reason)),
      };
    },
    async configureZenginBank(req, context) {
      return {
        resultDelayMinutes: await configureSimulatedZenginBank(ctx, merchantOf(context).id, req.resultDelayMinutes),
      };
    },
    async configureKycReview(req, context) {
      return configureKycReview(ctx, merchantOf(context).id, { mode: req.mode, delaySeconds: req.delaySeconds });
    },
    async expirePaymentLink(req, context) {
      return expirePaymentLinkNow(ctx, merchantOf(context).id, req.paymentLinkUrl);
    },
    async listMailbox(req, context) {
      const messages = await readMailbox(ctx, merchantOf(context).id, req.email);
      return {
        messages: messages.map((m) => ({
          to: m.to,
          subject: m.subject,
          body: m.body,
          code: m.code,
          sentAt: timestampFromDate(m.sentAt),
        })),
      };
    },
  };
}

function encodeAccount({ account, summary, underMaintenance, ledger }: SimulatedAccount): BankAccount {
  return create(BankAccountSchema, {
    customerId: account.customer_id,
    accountNumber: summary.maskedAccountNumber,
    display: summary.display,
    balance: BigInt(account.balance),
    quota: BigInt(account.quota),
    underMaintenance,
    reject: account.reject === 1,
    latencyMs: account.latency_ms,
    maintenanceUntil: account.maintenance_until ? timestampFromDate(new Date(account.maintenance_until)) : undefined,
    ledger: ledger.map((entry) => ({
      reference: entry.reference,
      amount: BigInt(entry.amount),
      balanceAfter: BigInt(entry.balance_after),
      at: timestampFromDate(new Date(entry.at)),
    })),
  });
}

/** Production: SandboxService does not exist; every method answers not_found (docs/reference/contract.md#sandbox). */
export function createAbsentSandboxService(): SandboxImpl {
  const absent = async () => {
    throw new RequestRefusal("not_found", "SandboxService is only available in sandbox mode");
  };
  return Object.fromEntries(SandboxService.methods.map((method) => [method.localName, absent])) as SandboxImpl;
}
