import { DeliveryStatus } from "../../../../gen/payments/v1/enums_pb.js";
import type { AppContext } from "../app-context.js";
import { busy, enumName, errorBox, h, table, when } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** Webhook events with their delivery attempts, and redelivery. */
export async function eventsView(app: AppContext): Promise<HTMLElement> {
  const { events } = await rpc.listWebhookEvents({ filter: { pageSize: 50 } });
  const problem = errorBox();
  const rows = events.map((event) => {
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
      (a) => `${when(a.attemptedAt)} ${a.httpStatus || a.error} (${a.durationMs} ms)`,
    );
    return [
      h("code", {}, event.id),
      event.eventTypeName,
      event.chargeId ? h("a", { href: `#/charges/${event.chargeId}` }, event.chargeId) : "",
      enumName(DeliveryStatus, event.deliveryStatus),
      attempts.length
        ? h(
            "ul",
            { class: "plain" },
            attempts.map((line) => h("li", {}, line)),
          )
        : "—",
      when(event.createdAt),
      redeliver,
    ];
  });
  return h(
    "section",
    {},
    h("h1", { tabindex: -1 }, t().navEvents),
    problem,
    table(t().events, ["ID", t().eventType, t().charge, t().delivery, t().attempts, t().created, ""], rows),
  );
}
