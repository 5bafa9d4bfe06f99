import { Code, ConnectError } from "@connectrpc/connect";
import { errorMessage, h } from "./dom.js";
import { initialLang, lang, setLang, t } from "./i18n.js";
import { rpc } from "./rpc.js";
import { historyView } from "./views/history.js";
import { merchantsView } from "./views/merchants.js";
import { receiptView } from "./views/receipt.js";
import { signInView } from "./views/sign-in.js";
import { stopView } from "./views/stop.js";

/**
 * The customer app (docs/guide/customer-app.md): a client of CustomerAppService. Routes live in
 * the URL's hash (#/history, #/merchants, #/receipt/trx-…, #/stop/con-…), so the server serves one
 * page. Nothing personal is stored in the browser: the session is an HttpOnly cookie, and there is
 * no service worker.
 */
const mode = document.querySelector<HTMLMetaElement>('meta[name="furikomi-mode"]')?.content ?? "sandbox";
const root = document.getElementById("app")!;
const status = h("p", { class: "visually-hidden", role: "status", "aria-live": "polite" });
let signedIn = false;
/** A message to show once on the next view (e.g. after a stop request). */
let notice = "";

type Route = { name: string; id?: string; query: URLSearchParams };

function currentRoute(): Route {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?", 2);
  const [, name = "history", id] = path.split("/");
  return { name: name || "history", id: id ? decodeURIComponent(id) : undefined, query: new URLSearchParams(query) };
}

async function view(route: Route): Promise<HTMLElement> {
  if (!signedIn)
    return signInView(() => {
      signedIn = true;
      location.hash = "#/history";
      void render();
    });
  switch (route.name) {
    case "merchants":
      return merchantsView();
    case "receipt":
      return receiptView(route.id ?? "");
    case "stop":
      return stopView(route.id ?? "", (text) => {
        notice = text;
      });
    default:
      return historyView(route.query);
  }
}

function header(route: Route): HTMLElement {
  const toggle = h(
    "button",
    { type: "button", class: "lang-toggle", lang: lang() === "ja" ? "en" : "ja", "aria-label": t().langToggleLabel },
    t().langToggle,
  );
  toggle.addEventListener("click", () => {
    setLang(lang() === "ja" ? "en" : "ja");
    void render();
  });
  const bar = h(
    "header",
    { class: "topbar no-print" },
    h("p", { class: "app-title" }, t().appTitle),
    mode === "sandbox" && h("p", { class: "sandbox-badge" }, t().sandboxBadge),
    toggle,
  );
  if (!signedIn) return bar;
  const link = (name: string, label: string) =>
    h("a", { href: `#/${name}`, "aria-current": route.name === name ? "page" : undefined }, label);
  const signOut = h("button", { type: "button", class: "link-button" }, t().signOut);
  signOut.addEventListener("click", async () => {
    await rpc.signOutCustomer({}).catch(() => undefined);
    signedIn = false;
    location.hash = "#/";
    void render();
  });
  return h(
    "div",
    {},
    bar,
    h(
      "nav",
      { class: "tabs no-print", "aria-label": t().mainNav },
      link("history", t().navHistory),
      link("merchants", t().navMerchants),
      signOut,
    ),
  );
}

async function render(): Promise<void> {
  const route = currentRoute();
  document.title = `${t().appTitle} | furikomi`;
  const main = h("main", { id: "main", tabindex: -1 }, h("p", { class: "loading" }, t().loading));
  root.replaceChildren(header(route), main);
  try {
    main.replaceChildren(status, await view(route));
  } catch (error) {
    if (ConnectError.from(error).code === Code.Unauthenticated && signedIn) {
      signedIn = false;
      return render();
    }
    main.replaceChildren(
      status,
      h(
        "section",
        { class: "card" },
        h("h1", { id: "view-heading", tabindex: -1 }, t().appTitle),
        h("p", { role: "alert", class: "alert" }, errorMessage(error)),
      ),
    );
  }
  status.textContent = notice;
  notice = "";
  main.querySelector<HTMLElement>("#view-heading")?.focus();
}

async function start(): Promise<void> {
  setLang(initialLang());
  signedIn = await rpc.getCustomerSession({}).then(
    () => true,
    () => false,
  );
  window.addEventListener("hashchange", () => void render());
  await render();
}

void start();
