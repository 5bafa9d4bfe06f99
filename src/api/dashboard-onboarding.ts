import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  BusinessDetailsSchema,
  BusinessKind,
  OnboardingChecklistSchema,
  OnboardingState,
  type BusinessDetails as BusinessDetailsMessage,
  type DashboardService,
  type OnboardingChecklist as OnboardingChecklistMessage,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import {
  merchantTermsVersion,
  missingItems,
  type BusinessDetails,
  type OnboardingChecklist,
} from "../domain/onboarding-checklist.js";
import type { OnboardingState as State } from "../domain/onboarding.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  acceptTerms,
  getChecklist,
  saveBusinessDetails,
  sendWebhookTestEvent,
  submitChecklist,
} from "../flows/onboarding.js";
import { dashboardPrincipalOf } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";

type OnboardingMethods =
  | "getOnboarding"
  | "saveBusinessDetails"
  | "sendOnboardingTestEvent"
  | "acceptMerchantTerms"
  | "submitOnboarding";

const stateEnum: Readonly<Record<State, OnboardingState>> = Object.freeze({
  incomplete: OnboardingState.INCOMPLETE,
  in_review: OnboardingState.IN_REVIEW,
  complete: OnboardingState.COMPLETE,
  suspended: OnboardingState.SUSPENDED,
});

/** The going-live checklist (docs/guide/getting-started.md#the-checklist); spread into DashboardService. */
export function createOnboardingHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof DashboardService>, OnboardingMethods> {
  const audited = (context: HandlerContext) => auditedContext(ctx, context);
  return {
    async getOnboarding(_req, context) {
      return { checklist: encodeChecklist(await getChecklist(ctx, dashboardPrincipalOf(context).merchant.id)) };
    },
    async saveBusinessDetails(req, context) {
      const saved = await saveBusinessDetails(
        audited(context),
        dashboardPrincipalOf(context),
        decodeBusiness(req.business!),
      );
      return { checklist: encodeChecklist(saved) };
    },
    async sendOnboardingTestEvent(_req, context) {
      return { eventId: await sendWebhookTestEvent(audited(context), dashboardPrincipalOf(context)) };
    },
    async acceptMerchantTerms(req, context) {
      return {
        checklist: encodeChecklist(await acceptTerms(audited(context), dashboardPrincipalOf(context), req.version)),
      };
    },
    async submitOnboarding(_req, context) {
      return { checklist: encodeChecklist(await submitChecklist(audited(context), dashboardPrincipalOf(context))) };
    },
  };
}

function decodeBusiness(message: BusinessDetailsMessage): BusinessDetails {
  return {
    kind: message.kind === BusinessKind.CORPORATION ? "corporation" : "sole_proprietor",
    corporateNumber: message.corporateNumber,
    tradeName: message.tradeName.trim(),
    tradeNameKana: message.tradeNameKana.trim(),
    address: message.address.trim(),
    representative: message.representative.trim(),
    phone: message.phone,
    invoiceRegistrationNumber: message.invoiceRegistrationNumber,
  };
}

function encodeChecklist(checklist: OnboardingChecklist): OnboardingChecklistMessage {
  const business = checklist.business;
  return create(OnboardingChecklistSchema, {
    state: stateEnum[checklist.state],
    business:
      business &&
      create(BusinessDetailsSchema, {
        ...business,
        kind: business.kind === "corporation" ? BusinessKind.CORPORATION : BusinessKind.SOLE_PROPRIETOR,
      }),
    zenginContract: checklist.zenginContract,
    webhookAnswered: checklist.webhookAnswered,
    termsVersion: checklist.termsVersion,
    currentTermsVersion: merchantTermsVersion,
    termsAcceptedAt: checklist.termsAcceptedAt ? timestampFromDate(checklist.termsAcceptedAt) : undefined,
    missing: missingItems(checklist),
    sentBackReason: checklist.sentBackReason,
  });
}
