import type { Event } from "../../../../gen/payments/v1/resources_pb.js";
import type { AppContext } from "../app-context.js";
import { busy, errorBox, field, h, idWithCopy, pagedTable, when } from "../dom.js";
import { choices, label } from "../enum-labels.js";
import { lang, t } from "../i18n.js";
import { rpc } from "../rpc.js";
import { DashboardRole, may } from "../roles.js";
import { moreButton } from "./paging.js";

/**
 * Webhook events filtered by type and delivery state, paged through all of them (keyset), each
 * with its payload and every delivery attempt, and redelivery.
 */
export async function eventsView(app: AppContext, query: URLSearchParams): Promise<HTMLElement> {
  const eventType = Number(query.get("type") ?? 0) || 0;
  const deliveryStatus = Number(query.get("delivery") ?? 0) || 0;
  const problem = errorBox();
  const list = pagedTable(
    t().events,
    ["ID", t().eventType, t().charge, t().delivery, t().attempts, t().payload, t().created, t().actions],
    eventType || deliveryStatus ? t().noMatch : t().none,
  );
  const more = await moreButton(async (pageToken) => {
    const page = await rpc.listWebhookEvents({ filter: { eventType, pageSize: 50, pageToken }, deliveryStatus });
    list.add(page.events.map((event) => eventRow(app, event, problem)));
    return page.nextPageToken;
  });
  return h("section", {}, h("h1", { tabindex: -1 }, t().navEvents), filterForm(query), problem, list.element, more);
}

function filterForm(query: URLSearchParams): HTMLFormElement {
  const select = (name: string, any: string, options: Array<[number, string]>) =>
    h(
      "select",
      { name },
      h("option", { value: "" }, any),
      options.map(([value, text]) => h("option", { value, selected: query.get(name) === String(value) }, text)),
    );
  const type = select("type", t().anyType, choices("eventType"));
  const delivery = select("delivery", t().anyDelivery, choices("deliveryStatus"));
  const form = h(
    "form",
    { class: "inline filters", role: "search", "aria-label": t().filters },
    field(t().eventType, type),
    field(t().delivery, delivery),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, t().filter),
      h("a", { href: "#/events", class: "button-link" }, t().clearFilters),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (type.value) next.set("type", type.value);
    if (delivery.value) next.set("delivery", delivery.value);
    location.hash = `#/events?${next}`;
  });
  return form;
}

function eventRow(app: AppContext, event: Event, problem: HTMLElement) {
  const redeliver = h(
    "button",
    { type: "button", class: "secondary", "aria-label": `${t().redeliver} ${event.id}` },
    t().redeliver,
  );
  redeliver.addEventListener("click", () =>
    busy(redeliver, problem, async () => {
      await rpc.redeliverWebhookEvent({ id: event.id });
      app.announce(t().redelivered);
    }),
  );
  const attempts = event.attempts.map(
    (a) =>
      `${when(a.attemptedAt)} — ${a.httpStatus ? `HTTP ${a.httpStatus}` : lang() === "en" && a.error ? a.error : t().networkError} (${a.durationMs} ms)`,
  );
  return [
    idWithCopy(event.id),
    label("eventType", event.eventType),
    event.chargeId ? idWithCopy(event.chargeId, `#/charges/${event.chargeId}`) : "",
    label("deliveryStatus", event.deliveryStatus),
    attempts.length
      ? h(
          "ol",
          { class: "plain" },
          attempts.map((line) => h("li", {}, line)),
        )
      : "—",
    h(
      "details",
      {},
      h("summary", {}, t().payload),
      h("pre", { class: "payload", tabindex: 0 }, prettyJson(event.contentJson)),
    ),
    when(event.createdAt),
    may(app.user, DashboardRole.ADMIN) ? redeliver : "",
  ];
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
