import type { AppContext } from "../app-context.js";
import { busy, errorBox, errorMessage, field, h, table, when, yen } from "../dom.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** Sandbox only: the mailbox (customers' one-time codes) and the simulated bank's controls. */
export async function sandboxView(app: AppContext): Promise<HTMLElement> {
  const { messages } = await rpc.listSandboxMailbox({});
  const section = h(
    "section",
    {},
    h("h1", { tabindex: -1 }, t().navSandbox),
    h("h2", {}, t().mailbox),
    table(
      t().mailbox,
      [t().to, t().subject, t().code, t().sent],
      messages.map((m) => [m.to, m.subject, m.code ? h("code", {}, m.code) : "", when(m.sentAt)]),
    ),
  );

  const customerId = h("input", { type: "text", placeholder: "cus-…", required: true });
  const balance = h("input", { type: "number", min: 0, step: 1 });
  const quota = h("input", { type: "number", min: 0, step: 1 });
  const reject = h("input", { type: "checkbox", id: "bank-reject" });
  const maintenance = h("input", { type: "checkbox", id: "bank-maintenance" });
  const ledger = h("div", {});
  const problem = errorBox();
  const show = (
    account:
      | {
          balance: bigint;
          quota: bigint;
          reject: boolean;
          underMaintenance: boolean;
          ledger: Array<{ reference: string; amount: bigint; balanceAfter: bigint; at?: Parameters<typeof when>[0] }>;
        }
      | undefined,
  ) => {
    if (!account) return;
    balance.value = String(account.balance);
    quota.value = String(account.quota);
    reject.checked = account.reject;
    maintenance.checked = account.underMaintenance;
    ledger.replaceChildren(
      table(
        t().ledger,
        ["Ref", t().amount, t().balance, t().sent],
        account.ledger.map((e) => [h("code", {}, e.reference), yen(e.amount), yen(e.balanceAfter), when(e.at)]),
      ),
    );
  };
  const load = h("button", { type: "button", class: "secondary" }, t().load);
  load.addEventListener("click", () =>
    busy(load, problem, async () =>
      show((await rpc.getSandboxBankAccount({ customerId: customerId.value.trim() })).account),
    ),
  );
  const save = h("button", { type: "submit" }, t().save);
  const form = h(
    "form",
    { class: "card" },
    h("div", { class: "inline" }, field(t().customerId, customerId), load),
    field(t().balance, balance),
    field(t().quota, quota),
    h("div", { class: "check" }, reject, h("label", { for: "bank-reject" }, t().reject)),
    h("div", { class: "check" }, maintenance, h("label", { for: "bank-maintenance" }, t().underMaintenance)),
    problem,
    save,
    ledger,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(save, problem, async () => {
      const { account } = await rpc.configureSandboxBankAccount({
        settings: {
          customerId: customerId.value.trim(),
          balance: balance.value === "" ? undefined : BigInt(balance.value),
          quota: quota.value === "" ? undefined : BigInt(quota.value),
          reject: reject.checked,
          underMaintenance: maintenance.checked,
        },
      });
      show(account);
      app.announce(t().saved);
    });
  });

  const bankWide = h("input", { type: "checkbox", id: "bank-wide" });
  const bankProblem = errorBox();
  bankWide.addEventListener("change", () => {
    bankProblem.textContent = "";
    rpc.setSandboxBankMaintenance({ settings: { underMaintenance: bankWide.checked } }).then(
      (answer) => app.announce(`${t().bankWide}: ${answer.underMaintenance ? "ON" : "OFF"}`),
      (error) => (bankProblem.textContent = errorMessage(error)),
    );
  });
  section.append(
    h("h2", {}, t().bank),
    form,
    h("div", { class: "check card" }, bankWide, h("label", { for: "bank-wide" }, t().bankWide)),
    bankProblem,
  );
  return section;
}
