import type { ConsignorSettings } from "../../../../gen/payments/v1/dashboard_service_pb.js";
import type { AppContext } from "../app-context.js";
import { actionRow, busy, doneBox, errorBox, field, h, table } from "../dom.js";
import { st } from "../i18n-settings.js";
import { t } from "../i18n.js";
import { rpc } from "../rpc.js";

/** A contract's fields as the form sends them (every ConsignorSettings field but the message's own). */
type ContractFields = Omit<ConsignorSettings, "$typeName" | "$unknown">;

/**
 * The merchant's 口座振替 contracts (BANK_CONNECTOR=zengin, docs/guide/direct-debit-files.md#contracts):
 * each listed with its kind, 委託者コード, the banks it debits, its result style and extra name
 * characters, and edited one at a time as `zengin contracts update` does. With none yet, the form
 * sets the first, as `merchants update --consignor-…` does.
 */
export async function consignorContractsView(_app: AppContext): Promise<HTMLElement> {
  const area = h("div", {});
  // Saved: said beside the form that was sent (the form itself is replaced by the list).
  const done = doneBox();
  const saved = () => {
    done.textContent = t().saved;
  };
  const render = async () => {
    const { contracts } = await rpc.listConsignorContracts({});
    if (contracts.length === 0) {
      area.replaceChildren(
        contractForm(undefined, t().consignor, async (settings) => {
          await rpc.updateConsignorSettings({ settings });
          await render();
          saved();
        }),
      );
      return;
    }
    const editor = h("div", {});
    const rows = contracts.map((contract) => {
      const edit = h(
        "button",
        { type: "button", class: "secondary", "aria-label": `${t().contractEdit} ${contract.code}` },
        t().contractEdit,
      );
      edit.addEventListener("click", () => {
        const heading = `${t().contractEditing} ${contract.code}`;
        const form = contractForm(contract, heading, async (settings) => {
          await rpc.updateConsignorContract({ code: contract.code, settings });
          await render();
          saved();
        });
        done.textContent = "";
        editor.replaceChildren(h("h2", {}, heading), form);
        form.querySelector("input")?.focus();
      });
      return [
        t().contractScopes[contract.scope] ?? contract.scope,
        h("code", {}, contract.code),
        coveredBanks(contract),
        t().contractResultStyles[contract.resultStyle] ?? contract.resultStyle,
        contract.nameCharacters || "—",
        edit,
      ];
    });
    area.replaceChildren(
      table(
        t().consignorContracts,
        [
          t().contractScope,
          t().contractCode,
          t().contractCovers,
          t().contractResultStyle,
          t().contractNameCharacters,
          t().actions,
        ],
        rows,
      ),
      editor,
    );
  };
  await render();
  return h("div", {}, area, done);
}

/** The banks a contract debits, as its scope says (domain/contract-scope.ts). */
function coveredBanks(contract: ConsignorSettings): string {
  if (contract.scope === "agent") return contract.banks.length > 0 ? contract.banks.join(", ") : t().contractEveryBank;
  return contract.scope === "yucho" ? `9900 ${t().contractScopes.yucho}` : contract.bankCode;
}

/** A form, named `label`, with every field of a contract (empty for the first one); `save` sends what it holds. */
function contractForm(
  contract: ConsignorSettings | undefined,
  label: string,
  save: (settings: ContractFields) => Promise<void>,
): HTMLFormElement {
  const text = (value: string, attributes: Record<string, string | number> = {}) =>
    h("input", { type: "text", value, ...attributes });
  const digits = (value: string, length: number) => text(value, { inputmode: "numeric", maxlength: length });
  const choice = (value: string, labels: Record<string, string>) =>
    h(
      "select",
      {},
      Object.entries(labels).map(([option, label]) =>
        h("option", { value: option, selected: option === value }, label),
      ),
    );
  const inputs = {
    code: digits(contract?.code ?? "", 10),
    scope: choice(contract?.scope || "agent", t().contractScopes),
    banks: text(contract?.banks.join(",") ?? "", { maxlength: 2000 }),
    transferCode: digits(contract?.transferCode ?? "", 10),
    name: text(contract?.name ?? "", { maxlength: 80 }),
    bankCode: digits(contract?.bankCode ?? "", 4),
    bankName: text(contract?.bankName ?? "", { maxlength: 30 }),
    branchCode: digits(contract?.branchCode ?? "", 3),
    branchName: text(contract?.branchName ?? "", { maxlength: 30 }),
    // 預金種目: the values a consignor's account may have (flows/zengin-contracts.ts: 1, 2, 9).
    accountType: choice(contract?.accountType ? String(contract.accountType) : "1", st().accountTypes),
    accountNumber: digits(contract?.accountNumber ?? "", 7),
    debitDay: digits(contract?.debitDay ? String(contract.debitDay) : "", 2),
    resultStyle: choice(contract?.resultStyle || "all", t().contractResultStyles),
    nameCharacters: text(contract?.nameCharacters ?? "", { maxlength: 5 }),
  };
  const submit = h("button", { type: "submit" }, t().save);
  const problem = errorBox();
  const form = h(
    "form",
    { class: "card", "aria-label": label },
    field(t().consignorCode, inputs.code),
    field(t().contractScope, inputs.scope),
    field(t().contractBanks, inputs.banks),
    field(t().contractTransferCode, inputs.transferCode),
    field(t().consignorName, inputs.name),
    field(t().consignorBank, inputs.bankCode),
    field(t().consignorBankName, inputs.bankName),
    field(t().consignorBranch, inputs.branchCode),
    field(t().consignorBranchName, inputs.branchName),
    field(st().accountType, inputs.accountType),
    field(t().consignorAccount, inputs.accountNumber),
    field(t().debitDay, inputs.debitDay),
    field(t().contractResultStyle, inputs.resultStyle),
    field(t().contractNameCharacters, inputs.nameCharacters, t().contractNameCharactersHint),
    actionRow(submit, doneBox(), problem),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = (input: HTMLInputElement | HTMLSelectElement) => input.value.trim();
    void busy(submit, problem, () =>
      save({
        code: value(inputs.code),
        scope: value(inputs.scope),
        banks: value(inputs.banks)
          .split(/[\s,]+/)
          .filter(Boolean),
        transferCode: value(inputs.transferCode),
        name: value(inputs.name),
        bankCode: value(inputs.bankCode),
        bankName: value(inputs.bankName),
        branchCode: value(inputs.branchCode),
        branchName: value(inputs.branchName),
        accountType: Number(value(inputs.accountType) || 0),
        accountNumber: value(inputs.accountNumber),
        debitDay: Number(value(inputs.debitDay) || 0),
        resultStyle: value(inputs.resultStyle),
        nameCharacters: value(inputs.nameCharacters),
      }),
    );
  });
  return form;
}
