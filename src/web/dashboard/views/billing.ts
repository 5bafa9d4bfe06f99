import { type Plan, SubscriptionStatus } from "../../../../gen/payments/v1/subscription_service_pb.js";
import type { BillingSubscription } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import type { AppContext } from "../app-context.js";
import { busy, confirmAction, errorBox, h, idWithCopy, pagedTable, table, yenCell } from "../dom.js";
import { formatJstDate } from "../../../domain/display-format.js";
import { bt, discountText, dunningText, intervalText } from "../i18n-billing.js";
import { rpc } from "../rpc.js";
import { DashboardRole, may } from "../roles.js";
import { moreButton } from "./paging.js";
import { newPlanForm } from "./plan-form.js";
import { subscriptionImportSection } from "./subscription-import.js";

/**
 * Recurring billing (docs/guide/dashboard.md#recurring-billing): the coming debit dates with their
 * expected totals, the re-debit queue, the plans and the subscriptions; operators create plans and
 * pause, resume or cancel subscriptions.
 */
export async function billingView(app: AppContext): Promise<HTMLElement> {
  const problem = errorBox();
  const operator = may(app.user, DashboardRole.OPERATOR);
  const [calendar, redebits, plans, subscriptions, imports] = await Promise.all([
    calendarTable(),
    subscriptionList(app, problem, bt().redebits, bt().redebitsEmpty, (pageToken) =>
      rpc.listRedebitQueue({ pageSize: 50, pageToken }),
    ),
    planList(),
    subscriptionList(app, problem, bt().subscriptions, bt().subscriptionsEmpty, async (pageToken) =>
      rpc.listBillingSubscriptions({ query: { pageSize: 50, pageToken } }),
    ),
    subscriptionImportSection(app, operator),
  ]);
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, bt().navBilling),
    problem,
    h("h2", {}, bt().calendar),
    calendar,
    h("h2", {}, bt().redebits),
    redebits,
    h("h2", {}, bt().plans),
    plans,
    operator ? newPlanForm(app) : null,
    h("h2", {}, bt().subscriptions),
    subscriptions,
    h("h2", {}, bt().importTitle),
    imports,
  );
}

async function calendarTable(): Promise<HTMLElement> {
  const { days } = await rpc.getDebitCalendar({ days: 0 });
  return table(
    bt().calendar,
    [bt().debitDate, bt().subscriptionCount, bt().expected, bt().carried],
    days.map((day) => [
      formatJstDate(day.debitDate),
      String(day.subscriptions),
      yenCell(day.amount),
      day.carriedAmount > 0n ? yenCell(day.carriedAmount) : "—",
    ]),
    bt().calendarEmpty,
  );
}

async function planList(): Promise<HTMLElement> {
  const list = pagedTable(
    bt().plans,
    ["ID", bt().name, bt().price, bt().interval, bt().debitDay, bt().discount, bt().dunning],
    bt().plansEmpty,
  );
  const more = await moreButton(async (pageToken) => {
    const { result } = await rpc.listBillingPlans({ query: { pageSize: 50, pageToken } });
    list.add((result?.plans ?? []).map(planRow));
    return result?.nextPageToken ?? "";
  });
  return h("div", {}, list.element, more);
}

function planRow(plan: Plan) {
  return [
    idWithCopy(plan.planId),
    plan.name,
    yenCell(plan.amount),
    intervalText(plan.intervalUnit, plan.intervalCount),
    plan.debitOnLastDay ? bt().lastDay : String(plan.debitDay),
    discountText(plan),
    dunningText(plan),
  ];
}

async function subscriptionList(
  app: AppContext,
  problem: HTMLElement,
  caption: string,
  empty: string,
  page: (pageToken: string) => Promise<{ subscriptions: BillingSubscription[]; nextPageToken: string }>,
): Promise<HTMLElement> {
  const headers = ["ID", bt().customer, bt().plan, bt().status, bt().nextDebit, bt().actions];
  const list = pagedTable(caption, headers, empty);
  const more = await moreButton(async (pageToken) => {
    const { subscriptions, nextPageToken } = await page(pageToken);
    list.add(subscriptions.map((billing) => subscriptionRow(app, problem, billing)));
    return nextPageToken;
  });
  return h("div", {}, list.element, more);
}

function subscriptionRow(app: AppContext, problem: HTMLElement, billing: BillingSubscription) {
  const subscription = billing.subscription!;
  const reason = bt().pastDueReason[subscription.pastDueReason];
  const status = [
    bt().status_[subscription.status],
    reason ? ` (${reason})` : "",
    billing.stopRequest ? h("span", { class: "badge" }, bt().stopRequested) : null,
  ];
  const next = subscription.nextDebitDate
    ? [formatJstDate(subscription.nextDebitDate), " ", yenCell(billing.nextDebitAmount)]
    : "—";
  return [
    idWithCopy(subscription.subscriptionId),
    idWithCopy(subscription.customerId, `#/customers/${subscription.customerId}`),
    billing.planName,
    h("span", {}, status),
    h("span", {}, next),
    may(app.user, DashboardRole.OPERATOR) ? subscriptionActions(app, problem, billing) : "",
  ];
}

/** Pause or resume, and cancel at period end: the choices the subscription's status leaves. */
function subscriptionActions(app: AppContext, problem: HTMLElement, billing: BillingSubscription): HTMLElement {
  const { subscriptionId, status, cancelAtPeriodEnd } = billing.subscription!;
  const button = (label: string, act: () => Promise<string | undefined>) => {
    const control = h(
      "button",
      { type: "button", class: "secondary", "aria-label": `${label} ${subscriptionId}` },
      label,
    );
    control.addEventListener("click", () =>
      busy(control, problem, async () => {
        const done = await act();
        if (!done) return;
        app.announce(done);
        await app.refreshUser();
      }),
    );
    return control;
  };
  const change = { subscriptionId };
  const live = status === SubscriptionStatus.ACTIVE || status === SubscriptionStatus.PAST_DUE;
  const paused = status === SubscriptionStatus.PAUSED;
  return h(
    "div",
    { class: "actions" },
    live
      ? button(bt().pause, async () => {
          await rpc.pauseBillingSubscription({ change });
          return bt().paused(subscriptionId);
        })
      : null,
    paused
      ? button(bt().resume, async () => {
          await rpc.resumeBillingSubscription({ change });
          return bt().resumed(subscriptionId);
        })
      : null,
    (live || paused) && !cancelAtPeriodEnd
      ? button(bt().cancelAtPeriodEnd, async () => {
          if (!(await confirmAction(bt().confirmCancel(subscriptionId), bt().cancelAtPeriodEnd))) return undefined;
          await rpc.cancelBillingSubscription({ change: { subscriptionId, atPeriodEnd: true } });
          return bt().cancelled(subscriptionId);
        })
      : null,
  );
}
