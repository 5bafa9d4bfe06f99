import { Code, ConnectError } from "@connectrpc/connect";
import type { DashboardUser } from "../../../gen/payments/v1/dashboard_service_pb.js";
import type { AppContext } from "./app-context.js";
import { errorMessage, h } from "./dom.js";
import { initialLang, lang, setLang, t } from "./i18n.js";
import { rpc } from "./rpc.js";
import { batchView, batchesView } from "./views/batches.js";
import { billingView } from "./views/billing.js";
import { bt } from "./i18n-billing.js";
import { chargeView, chargesView } from "./views/charges.js";
import { customerView, customersView } from "./views/customers.js";
import { eventsView } from "./views/events.js";
import { zenginFileView, zenginView } from "./views/zengin.js";
import { consignorView } from "./views/consignor.js";
import { st } from "./i18n-settings.js";
import { sandboxView } from "./views/sandbox.js";
import { securityView } from "./views/security.js";
import { settingsView } from "./views/settings.js";
import { signInView } from "./views/sign-in.js";
import { auditView } from "./views/audit.js";
import { invitationView } from "./views/invitation.js";
import { signUpView, startView } from "./views/sign-up.js";
import { onboardingView } from "./views/onboarding.js";
import { ot } from "./i18n-onboarding.js";
import { teamView } from "./views/team.js";
import { tt } from "./i18n-team.js";
import { DashboardRole, may } from "./roles.js";

/**
 * The merchant dashboard: a client of DashboardService (docs/guide/dashboard.md). Routes
 * live in the URL's hash (#/customers/cus-…), so the server serves one page for all of them.
 */
const mode = document.querySelector<HTMLMetaElement>('meta[name="furikomi-mode"]')?.content ?? "sandbox";
const root = document.getElementById("app")!;
const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
let user: DashboardUser | undefined;

const context = (): AppContext => ({
  user: user!,
  mode,
  refreshUser: async () => {
    user = (await rpc.getSession({})).user;
    void render();
  },
  announce: (text) => {
    status.textContent = text;
  },
});

type Route = { name: string; id?: string; query: URLSearchParams };

function currentRoute(): Route {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?", 2);
  const [, name = "customers", id] = path.split("/");
  return { name: name || "customers", id: id ? decodeURIComponent(id) : undefined, query: new URLSearchParams(query) };
}

async function view(route: Route): Promise<HTMLElement> {
  const app = context();
  // The merchant requires TOTP, or the user was invited or had it reset, and has none yet: enrolment is all there is.
  if ((app.user.merchantRequiresTotp || app.user.totpSetupRequired) && !app.user.totpEnabled) return securityView(app);
  switch (route.name) {
    case "customers":
      return route.id ? customerView(route.id) : customersView(route.query);
    case "charges":
      return route.id ? chargeView(app, route.id) : chargesView(app, route.query);
    case "batches":
      return route.id ? batchView(app, route.id) : batchesView(app);
    case "events":
      return eventsView(app, route.query);
    case "billing":
      return billingView(app);
    case "zengin":
      return route.id ? zenginFileView(route.id) : zenginView();
    case "settings":
      return settingsView(app);
    case "consignor":
      return consignorView(app);
    case "security":
      return securityView(app);
    case "sandbox":
      return sandboxView(app);
    case "team":
      return teamView(app);
    case "audit":
      return auditView(app);
    case "start":
      return startView();
    case "onboarding":
      return onboardingView();
    default:
      return customersView(route.query);
  }
}

function navigation(route: Route): HTMLElement {
  // [route, label, the least role that may use the page (none: everyone)]
  type Page = [string, string, DashboardRole?];
  const pages: Page[] = [
    ["customers", t().navCustomers],
    ["charges", t().navCharges],
    ["batches", t().navBatches],
    ["billing", bt().navBilling],
    ["events", t().navEvents],
    ["zengin", t().navZengin],
    ["settings", t().navSettings, DashboardRole.ADMIN],
    ["consignor", st().navConsignor, DashboardRole.ADMIN],
    ["security", t().navSecurity],
    ...(mode === "sandbox" ? [["sandbox", t().navSandbox, DashboardRole.OPERATOR] as Page] : []),
    ["team", tt().navTeam, DashboardRole.OWNER],
    ["onboarding", ot().checklistTitle, DashboardRole.OWNER],
    ["audit", tt().navAudit, DashboardRole.ADMIN],
  ];
  const links = pages.filter(([, , least]) => least === undefined || may(user!, least));
  return h(
    "nav",
    { "aria-label": t().title },
    h(
      "ul",
      {},
      links.map(([name, label]) =>
        h("li", {}, h("a", { href: `#/${name}`, "aria-current": route.name === name ? "page" : undefined }, label)),
      ),
    ),
  );
}

function header(route: Route | undefined): HTMLElement {
  const toggle = h(
    "button",
    {
      type: "button",
      class: "secondary",
      lang: lang() === "ja" ? "en" : "ja",
      "aria-label": `${t().language}: ${t().languageLabel}`,
    },
    t().language,
  );
  toggle.addEventListener("click", () => {
    setLang(lang() === "ja" ? "en" : "ja");
    void render();
  });
  const signOut = user ? h("button", { type: "button", class: "secondary" }, t().signOut) : null;
  signOut?.addEventListener("click", async () => {
    await rpc.signOut({}).catch(() => {});
    user = undefined;
    location.hash = "";
    void render();
  });
  return h(
    "header",
    {},
    h(
      "a",
      {
        class: "skip",
        href: "#main",
        onclick: (event: Event) => (event.preventDefault(), document.getElementById("main")?.focus()),
      },
      t().skip,
    ),
    h(
      "p",
      { class: "brand" },
      t().title,
      user ? h("span", { class: "who" }, ` — ${user.merchantName} (${user.email})`) : null,
      user ? h("span", { class: "role", "data-testid": "role" }, ` ${tt().roles[user.role] ?? ""}`) : null,
      mode === "sandbox" ? h("span", { class: "badge" }, "SANDBOX") : null,
    ),
    h("div", { class: "tools" }, toggle, signOut),
    route && user ? navigation(route) : null,
  );
}

let renderCount = 0;

async function render(): Promise<void> {
  const mine = ++renderCount;
  document.title = t().title;
  const main = h("main", { id: "main", tabindex: -1 });
  const signedIn = async () => {
    user = (await rpc.getSession({})).user;
    void render();
  };
  const invitation = currentRoute();
  if (invitation.name === "invitation" && invitation.id) {
    root.replaceChildren(header(undefined), status, main);
    main.append(await invitationView(invitation.id, signedIn));
    main.querySelector<HTMLElement>("input:not([readonly])")?.focus();
    return;
  }
  if (!user && invitation.name === "sign-up") {
    root.replaceChildren(header(undefined), status, main);
    main.append(signUpView(signedIn));
    main.querySelector("input")?.focus();
    return;
  }
  if (!user) {
    root.replaceChildren(header(undefined), status, main);
    main.append(
      signInView(async () => {
        user = (await rpc.getSession({})).user;
        void render();
      }),
    );
    main.querySelector("input")?.focus();
    return;
  }
  const route = currentRoute();
  root.replaceChildren(header(route), status, main);
  main.append(h("p", {}, t().loading));
  try {
    const node = await view(route);
    if (mine !== renderCount) return;
    main.replaceChildren(node);
  } catch (error) {
    if (ConnectError.from(error).code === Code.Unauthenticated) {
      user = undefined;
      return render();
    }
    if (mine === renderCount) main.replaceChildren(h("p", { class: "error", role: "alert" }, errorMessage(error)));
  }
  // Moving between pages puts the focus on the new page's heading, for keyboard and screen-reader users.
  (main.querySelector("h1") as HTMLElement | null)?.focus();
}

async function start(): Promise<void> {
  setLang(initialLang());
  try {
    user = (await rpc.getSession({})).user;
  } catch {
    user = undefined;
  }
  window.addEventListener("hashchange", () => {
    status.textContent = "";
    void render();
  });
  await render();
}

void start();
