import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import QRCode from "qrcode";
import {
  ApiKeySchema,
  CsvBatchSchema,
  DashboardService,
  DashboardUserSchema,
  ExportChargesRequestSchema,
  PayerSchema,
  type ApiKey,
  type ChargeFilter,
  type Payer,
  type CsvBatch,
  type DashboardUser,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import { ListEventsRequestSchema, RedeliverEventRequestSchema } from "../../gen/payments/v1/payment_service_pb.js";
import { GetBankAccountRequestSchema, ListMailboxRequestSchema } from "../../gen/payments/v1/sandbox_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { zenginFilesOfMerchant } from "../flows/zengin-dashboard-view.js";
import { type ConsignorInput, consignorSettings, updateConsignor } from "../flows/merchants.js";

import {
  authenticateSession,
  beginTotpEnrollment,
  completeSignIn,
  confirmTotpEnrollment,
  requireStepUp,
  setTotpRequirement,
  signIn,
  signOut,
  verifyStepUp,
  type DashboardPrincipal,
  type NewSession,
} from "../flows/dashboard-auth.js";
import {
  chargeDetail,
  chargesForExport,
  createApiKey,
  findCustomers,
  customerDetail,
  getWebhookSettings,
  listApiKeys,
  listCharges,
  requireSandbox,
  revokeOneApiKey,
  updateWebhookSettings,
  type ApiKeyView,
} from "../flows/dashboard.js";
import {
  confirmCsvBatch,
  csvBatchResult,
  csvBatchRows,
  getCsvBatch,
  listRecentCsvBatches,
  newCsvBatchChallenge,
  uploadCsvBatch,
  type CsvBatchView,
} from "../flows/dashboard-csv-batch.js";
import { contractMandate } from "../flows/mandates.js";
import { getSupportContact, setSupportContact } from "../flows/merchants.js";
import { sessionLimits } from "../domain/dashboard-session.js";
import {
  createDashboardSessionInterceptor,
  dashboardCookies,
  dashboardPrincipalOf,
  sessionCookieHeaders,
  type DashboardCookies,
} from "./dashboard-session.js";
import { encodeCharge, encodeContract, encodeCustomer, encodeEvent, encodeStopRequest } from "./encode.js";
import { auditedContext, callOrigin, createTeamHandlers } from "./dashboard-team.js";
import { roleEnum } from "../domain/dashboard-role.js";
import { createEventHandlers, eventQueryOf } from "./payment-events.js";
import { requireValid } from "./require-valid.js";
import { searchEvents } from "../flows/events.js";
import { chargeExportChunk } from "../domain/charge-export.js";
import { RefundRefusedFailure } from "../domain/refund.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { emailPrefixKey } from "../domain/customer-search.js";
import type { ChargeSearch, PayerRow } from "../flows/dashboard.js";
import { createRefundHandlers } from "./payment-refunds.js";
import { createSandboxService } from "./sandbox-service.js";

/** The consignor settings as the dashboard shows them. */
function encodeConsignor(input: ConsignorInput) {
  return {
    code: input.code,
    name: input.name,
    bankCode: input.bankCode,
    bankName: input.bankName ?? "",
    branchCode: input.branchCode,
    branchName: input.branchName ?? "",
    accountType: Number(input.accountType || 0),
    accountNumber: input.accountNumber,
    debitDay: Number(input.debitDay || 0),
  };
}

/** Cookies are Secure (and `__Host-`) when the server speaks TLS or sits behind an https public URL. */
export function dashboardCookiesFor(ctx: FlowContext): DashboardCookies {
  const tls = Boolean(ctx.config.tlsCertFile && ctx.config.tlsKeyFile) || ctx.config.publicBaseUrl.startsWith("https:");
  return dashboardCookies(tls);
}

/** The interceptor that authenticates DashboardService calls (wired by the composition root). */
export function createDashboardAuthInterceptor(ctx: FlowContext) {
  return createDashboardSessionInterceptor(
    (token, csrf) => authenticateSession(ctx, token, csrf),
    dashboardCookiesFor(ctx),
  );
}

/** DashboardService (docs/guide/dashboard.md): decode, call a flow, encode. */
export function createDashboardService(ctx: FlowContext): ServiceImpl<typeof DashboardService> {
  const cookies = dashboardCookiesFor(ctx);
  const merchantOf = (context: HandlerContext) => dashboardPrincipalOf(context).merchant;
  // The session interceptor also sets the merchant of the call, so these PaymentService and
  // SandboxService handlers serve the dashboard as they serve the API.
  // Made per call with the flow context of the person calling, so what they change is audited.
  const refunds = (context: HandlerContext) => createRefundHandlers(auditedContext(ctx, context));
  const events = createEventHandlers(ctx);
  const sandbox = (context: HandlerContext) =>
    createSandboxService(auditedContext(ctx, context)) as Required<ReturnType<typeof createSandboxService>>;
  const audited = (context: HandlerContext) => auditedContext(ctx, context);
  /** Sets the new session's cookies; answers the user and the CSRF token. */
  const sessionStarted = (session: NewSession, context: HandlerContext) => {
    const maxAgeSeconds = Math.floor(sessionLimits.absoluteMs / 1000);
    for (const cookie of sessionCookieHeaders(cookies, {
      token: session.sessionToken,
      csrfToken: session.principal.csrfToken,
      maxAgeSeconds,
    })) {
      context.responseHeader.append("set-cookie", cookie);
    }
    return { user: encodeUser(session.principal), csrfToken: session.principal.csrfToken };
  };
  /** A sensitive call: a user with TOTP needs a code from the last 5 minutes. */
  const steppedUpMerchant = (context: HandlerContext) => {
    const principal = dashboardPrincipalOf(context);
    requireStepUp(ctx, principal);
    return principal.merchant;
  };
  return {
    async signIn(req, context) {
      const outcome = await signIn(ctx, { email: req.email, password: req.password }, callOrigin(context));
      if (outcome.totpRequired) return { totpRequired: true, signInToken: outcome.signInToken };
      return sessionStarted(outcome.session, context);
    },
    async completeSignIn(req, context) {
      return sessionStarted(
        await completeSignIn(ctx, { signInToken: req.signInToken, code: req.code }, callOrigin(context)),
        context,
      );
    },
    async signOut(_req, context) {
      await signOut(ctx, dashboardPrincipalOf(context));
      for (const cookie of sessionCookieHeaders(cookies, undefined))
        context.responseHeader.append("set-cookie", cookie);
      return {};
    },
    async getSession(_req, context) {
      const principal = dashboardPrincipalOf(context);
      return { user: encodeUser(principal), csrfToken: principal.csrfToken };
    },
    async beginTotpEnrollment(_req, context) {
      const { secret, uri } = await beginTotpEnrollment(ctx, dashboardPrincipalOf(context));
      return {
        secret,
        otpauthUri: uri,
        qrSvg: await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 }),
      };
    },
    async confirmTotpEnrollment(req, context) {
      const recoveryCodes = await confirmTotpEnrollment(audited(context), dashboardPrincipalOf(context), req.code);
      return { totpEnabled: true, recoveryCodes };
    },
    async verifyStepUp(req, context) {
      return { validUntil: timestampFromDate(await verifyStepUp(ctx, dashboardPrincipalOf(context), req.code)) };
    },
    async setTotpRequirement(req, context) {
      await setTotpRequirement(audited(context), dashboardPrincipalOf(context), req.required);
      return { required: req.required };
    },
    async searchCustomers(req, context) {
      const page = await findCustomers(ctx, merchantOf(context), req);
      return {
        customers: page.customers.map(encodeCustomer),
        nextPageToken: page.nextPageToken,
        payers: page.payers.map(encodePayer),
      };
    },
    async getCustomerDetail(req, context) {
      const merchant = merchantOf(context);
      const detail = await customerDetail(ctx, merchant, req.customerId);
      return {
        customer: encodeCustomer(detail.customer),
        contracts: await Promise.all(
          detail.contracts.map(async (contract) =>
            encodeContract(contract, merchant.name, await contractMandate(ctx, merchant.id, contract.id)),
          ),
        ),
        charges: detail.charges.map(({ charge, refunds }) => encodeCharge(charge, refunds)),
        stopRequests: detail.stopRequests.map(encodeStopRequest),
      };
    },
    async listCharges(req, context) {
      const page = await listCharges(ctx, merchantOf(context), {
        ...chargeSearchOf(req.customerId, req.filter),
        pageSize: req.pageSize,
        pageToken: req.pageToken,
      });
      return {
        charges: page.charges.map(({ charge, refunds }) => encodeCharge(charge, refunds)),
        nextPageToken: page.nextPageToken,
        payers: page.payers.map(encodePayer),
      };
    },
    async *exportCharges(req, context) {
      // A server-streaming call passes the validation interceptor by; its rules are checked here.
      requireValid(ExportChargesRequestSchema, req);
      const merchant = merchantOf(context);
      const fileName = `charges-${ctx.clock.now().toISOString().slice(0, 10)}.csv`;
      let first = true;
      for await (const page of chargesForExport(ctx, merchant, chargeSearchOf(req.customerId, req.filter))) {
        yield { fileName: first ? fileName : "", chunk: new TextEncoder().encode(chargeExportChunk(page, first)) };
        first = false;
      }
      if (first) yield { fileName, chunk: new TextEncoder().encode(chargeExportChunk([], true)) };
    },
    async listCsvBatchRows(req, context) {
      const result = await csvBatchRows(ctx, dashboardPrincipalOf(context), req.batchId, req.failedOnly);
      return {
        rows: result.rows.map((row) => ({
          rowNumber: row.rowNumber,
          customerEmail: row.cells[0] ?? "",
          customerId: row.cells[1] ?? "",
          price: row.cells[2] ?? "",
          description: row.cells[3] ?? "",
          status: row.status,
          reason: row.reason,
          reasonJa: row.reasonJa,
          chargeId: row.chargeId,
        })),
        validCount: result.validCount,
        invalidCount: result.invalidCount,
        validAmount: BigInt(result.validAmount),
      };
    },
    async getChargeDetail(req, context) {
      const detail = await chargeDetail(ctx, merchantOf(context), req.chargeId);
      return {
        charge: encodeCharge(detail.charge, detail.refunds, detail.refundsTruncated),
        customer: detail.customer && encodeCustomer(detail.customer),
        payer: detail.payer && encodePayer(detail.payer),
      };
    },
    async refundCharge(req, context) {
      steppedUpMerchant(context);
      try {
        const { refund, charge } = await refunds(context).refund(req.refund!, context);
        return { result: { refund, charge } };
      } catch (error) {
        throw dashboardRefundRefusal(error);
      }
    },
    async listWebhookEvents(req, context) {
      const page = await searchEvents(ctx, merchantOf(context), {
        ...eventQueryOf(req.filter ?? create(ListEventsRequestSchema)),
        deliveryStatus: req.deliveryStatus,
      });
      return {
        events: page.events.map(({ event, attempts }) => encodeEvent(event, attempts)),
        nextPageToken: page.nextPageToken,
      };
    },
    async redeliverWebhookEvent(req, context) {
      return {
        event: (
          await createEventHandlers(audited(context)).redeliverEvent(
            create(RedeliverEventRequestSchema, { id: req.id }),
            context,
          )
        ).event,
      };
    },
    async listApiKeys(_req, context) {
      return { keys: (await listApiKeys(ctx, merchantOf(context))).map(encodeApiKey) };
    },
    async createApiKey(_req, context) {
      const { key, secret } = await createApiKey(audited(context), steppedUpMerchant(context));
      return { key: encodeApiKey(key), secret };
    },
    async revokeApiKey(req, context) {
      return { key: encodeApiKey(await revokeOneApiKey(audited(context), steppedUpMerchant(context), req.id)) };
    },
    async getConsignorSettings(_req, context) {
      return { settings: encodeConsignor(await consignorSettings(ctx, merchantOf(context).id)) };
    },
    async updateConsignorSettings(req, context) {
      const settings = req.settings!;
      const merchantId = merchantOf(context).id;
      await updateConsignor(audited(context), merchantId, {
        code: settings.code,
        name: settings.name,
        bankCode: settings.bankCode,
        bankName: settings.bankName,
        branchCode: settings.branchCode,
        branchName: settings.branchName,
        accountType: String(settings.accountType),
        accountNumber: settings.accountNumber,
        debitDay: settings.debitDay ? String(settings.debitDay) : "",
      });
      return { settings: encodeConsignor(await consignorSettings(ctx, merchantId)) };
    },
    async listZenginFiles(_req, context) {
      const view = await zenginFilesOfMerchant(ctx, merchantOf(context).id);
      return {
        files: view.files.map((file) => ({
          name: file.name,
          kind: file.kind,
          direction: file.direction,
          date: file.date,
          state: file.state,
          recordCount: file.recordCount,
          totalAmount: BigInt(file.totalAmount),
          doneCount: file.doneCount,
          doneAmount: BigInt(file.doneAmount),
          failedCount: file.failedCount,
          failedAmount: BigInt(file.failedAmount),
          reason: file.reason,
          createdAt: timestampFromDate(file.createdAt),
          overdue: file.overdue,
        })),
        debitDates: view.debitDates.map((date) => ({
          ...date,
          requestedAmount: BigInt(date.requestedAmount),
          debitedAmount: BigInt(date.debitedAmount),
          failedAmount: BigInt(date.failedAmount),
        })),
        quarantined: view.quarantined,
        overdue: view.overdue,
      };
    },
    async getSupportContact(_req, context) {
      return { contact: await getSupportContact(ctx, merchantOf(context).id) };
    },
    async updateSupportContact(req, context) {
      const contact = req.contact ?? { email: "", phone: "", url: "" };
      return { contact: await setSupportContact(audited(context), merchantOf(context).id, contact) };
    },
    async getWebhookSettings(_req, context) {
      return getWebhookSettings(ctx, merchantOf(context));
    },
    async updateWebhookSettings(req, context) {
      const settings = await updateWebhookSettings(audited(context), steppedUpMerchant(context), {
        url: req.url,
        rotateSecret: req.rotateSecret,
      });
      return { url: settings.url, secret: settings.secret };
    },
    ...createTeamHandlers(ctx, sessionStarted),
    async listSandboxMailbox(req, context) {
      requireSandbox(ctx);
      return {
        messages: (await sandbox(context).listMailbox(create(ListMailboxRequestSchema, { email: req.email }), context))
          .messages,
      };
    },
    async getSandboxBankAccount(req, context) {
      requireSandbox(ctx);
      return {
        account: (
          await sandbox(context).getBankAccount(
            create(GetBankAccountRequestSchema, { customerId: req.customerId }),
            context,
          )
        ).account,
      };
    },
    async configureSandboxBankAccount(req, context) {
      requireSandbox(ctx);
      return { account: (await sandbox(context).configureBankAccount(req.settings!, context)).account };
    },
    async setSandboxBankMaintenance(req, context) {
      requireSandbox(ctx);
      return {
        underMaintenance: (await sandbox(context).setBankMaintenance(req.settings!, context)).underMaintenance,
      };
    },
    async uploadCsvBatch(req, context) {
      const uploaded = await uploadCsvBatch(audited(context), dashboardPrincipalOf(context), {
        fileName: req.fileName,
        content: req.content,
      });
      return {
        batchId: uploaded.batch.id,
        rowCount: uploaded.batch.rowCount,
        challengeId: uploaded.challenge.id,
        challengeExpiresAt: timestampFromDate(uploaded.challenge.expiresAt),
        invalidRowCount: uploaded.invalidRowCount,
        expiresAt: timestampFromDate(uploaded.batch.expiresAt),
      };
    },
    async createCsvBatchChallenge(req, context) {
      const challenge = await newCsvBatchChallenge(ctx, dashboardPrincipalOf(context), req.batchId);
      return { challengeId: challenge.id, challengeExpiresAt: timestampFromDate(challenge.expiresAt) };
    },
    async confirmCsvBatch(req, context) {
      return { batch: encodeBatch(await confirmCsvBatch(audited(context), dashboardPrincipalOf(context), req)) };
    },
    async getCsvBatch(req, context) {
      return { batch: encodeBatch(await getCsvBatch(ctx, dashboardPrincipalOf(context), req.batchId)) };
    },
    async listCsvBatches(req, context) {
      return {
        batches: (await listRecentCsvBatches(ctx, dashboardPrincipalOf(context), req.pageSize || 20)).map(encodeBatch),
      };
    },
    async downloadCsvBatchResult(req, context) {
      const result = await csvBatchResult(ctx, dashboardPrincipalOf(context), req.batchId);
      return { fileName: result.fileName, content: new TextEncoder().encode(result.content) };
    },
  };
}

/**
 * The dashboard shows a refused refund in the user's language, so it gets the rule as an ErrorInfo
 * reason (REFUND_EXCEEDS_REFUNDABLE, …: docs/guide/dashboard.md#refunds); PaymentService.Refund
 * keeps the contract's bare messages.
 */
function dashboardRefundRefusal(error: unknown): unknown {
  if (!(error instanceof RefundRefusedFailure)) return error;
  const reason = `REFUND_${error.refusal.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
  return new RequestRefusal(error.refusal === "notOwned" ? "not_found" : "precondition", error.message, reason);
}

/** A ListCharges / ExportCharges filter as the flow's search. */
function chargeSearchOf(customerId: string, filter: ChargeFilter | undefined): ChargeSearch {
  return {
    customerId: customerId || undefined,
    statuses: filter?.statuses,
    createdFrom: filter?.createdFrom && timestampDate(filter.createdFrom).toISOString(),
    createdBefore: filter?.createdBefore && timestampDate(filter.createdBefore).toISOString(),
    minAmount: filter?.minAmount,
    maxAmount: filter?.maxAmount,
    customerEmailPrefix: filter?.customerEmail ? emailPrefixKey(filter.customerEmail) : undefined,
  };
}

function encodePayer(payer: PayerRow): Payer {
  return create(PayerSchema, payer);
}

export function encodeUser(principal: DashboardPrincipal): DashboardUser {
  return create(DashboardUserSchema, {
    email: principal.email,
    merchantId: principal.merchant.id,
    merchantName: principal.merchant.name,
    totpEnabled: principal.totpEnabled,
    merchantRequiresTotp: principal.merchantRequiresTotp,
    role: roleEnum(principal.role),
    totpSetupRequired: principal.totpSetupRequired,
  });
}

function encodeApiKey(key: ApiKeyView): ApiKey {
  return create(ApiKeySchema, {
    id: key.id,
    prefix: key.prefix,
    createdAt: timestampFromDate(key.createdAt),
    revokedAt: key.revokedAt ? timestampFromDate(key.revokedAt) : undefined,
  });
}

function encodeBatch(batch: CsvBatchView): CsvBatch {
  return create(CsvBatchSchema, {
    batchId: batch.id,
    status: batch.status,
    rowCount: batch.rowCount,
    succeeded: batch.succeeded,
    failed: batch.failed,
    processing: batch.processing,
    createdAt: timestampFromDate(batch.createdAt),
    completedAt: batch.completedAt && timestampFromDate(batch.completedAt),
    fileName: batch.fileName,
    expiresAt: timestampFromDate(batch.expiresAt),
  });
}
