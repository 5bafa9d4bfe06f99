import { BankAccountType } from "../../../../gen/payments/v1/enums_pb.js";
import type { BankDirectoryEntry } from "../../../../gen/payments/v1/hosted_page_service_pb.js";
import { normaliseBankKana } from "../../../domain/kana.js";
import { yuchoBankCode, yuchoToZengin } from "../../../domain/yucho-account.js";
import { isContractOnly, load, render, session } from "../session.js";
import { debitNoticeParams, debitsOnDate } from "../debit-date.js";
import { readForm, showServerError, showStepError, toKatakana } from "../form.js";
import { $, announce, hasMessage, input, safeUrl, setRaw, setText, state } from "../page.js";
import { keep, kept } from "../kept.js";
import { call, page, type PageError } from "../rpc.js";

/**
 * Step 2: the account. The bank and branch are found by name or code as the customer types
 * (SearchBanks, SearchBranches); a ゆうちょ passbook's 記号・番号 are converted to the 店番 and
 * 口座番号 (domain/yucho-account.ts); the holder is shown as the bank will hold it (domain/kana.ts).
 * The bank then confirms the account on its own page: this page never asks for a PIN.
 */

/** Demo values for the simulated bank (sandbox only). */
const sandboxBankAccount: Record<string, string> = {
  bank_code: "0001",
  branch_code: "001",
  account_number: "1234567",
  account_holder: "ヤマダ タロウ",
};

const accountTypeKey: Record<number, string> = {
  [BankAccountType.UNSPECIFIED]: "bank.ordinary",
  [BankAccountType.ORDINARY]: "bank.ordinary",
  [BankAccountType.CURRENT]: "bank.current",
  [BankAccountType.SAVINGS]: "bank.savings",
};

/** The outcome of the round trip to the bank, as the return put it in `?bank=` (display only). */
const bankOutcome = new URLSearchParams(location.search).get("bank") ?? "";
let searchTimer: ReturnType<typeof setTimeout> | undefined;

export function renderBank(): void {
  $("bank-sandbox-note").hidden = !state.sandbox;
  renderDebitNote();
  renderConfirmedAccount();
  // What was typed before a reload or the bank's page comes back first; the demo account fills only the rest.
  const typed = kept().bank ?? {};
  for (const [id, value] of Object.entries(typed)) {
    const field = document.getElementById(id) as HTMLInputElement | HTMLSelectElement | null;
    if (field && (!field.value || field instanceof HTMLSelectElement)) field.value = value;
  }
  renderAccountType();
  const outcomeKey = `bank.outcome.${bankOutcome}`;
  if (bankOutcome && bankOutcome !== "verified" && hasMessage(outcomeKey)) showStepError("bank", outcomeKey);
  if (state.sandbox && !session().bankLinked) {
    const form = $<HTMLFormElement>("form-bank");
    for (const [name, value] of Object.entries(sandboxBankAccount)) {
      const field = form.elements.namedItem(name) as HTMLInputElement;
      if (!field.value && !(name in typed)) field.value = value;
    }
  }
  void showChosenBank();
}

/**
 * Back on the bank step with an account already confirmed (the browser's Back from the consent):
 * that account, and a button to go on with it; linking another replaces it.
 */
function renderConfirmedAccount(): void {
  const { bankLinked, bankAccount, accountHolder } = session();
  const box = $("bank-current");
  box.hidden = !bankLinked || !bankAccount;
  if (!box.hidden)
    setText($("bank-current-text"), "bank.confirmedAccount", { account: bankAccount?.display, holder: accountHolder });
}

/** Goes on to the consent with the account already confirmed. */
function keepConfirmedAccount(): void {
  state.reviewingBank = false;
  showStepError("bank", "");
  render();
}

/** The bank step's fields as typed, kept for a reload or the way back from the bank's page. */
const keptBankFields = [
  "bank_code",
  "branch_code",
  "account_type",
  "account_number",
  "account_holder",
  "yucho-kigo",
  "yucho-bango",
];

function keepBankFields(): void {
  keep({ bank: Object.fromEntries(keptBankFields.map((id) => [id, ($(id) as HTMLInputElement).value])) });
}

/**
 * Under a bank that debits on a date: when and how much (or that nothing is debited now), and no
 * promise of a bank page. Otherwise the note stays as it always was.
 */
function renderDebitNote(): void {
  const note = $("bank-debit-note");
  const onDate = debitsOnDate();
  note.hidden = !onDate;
  setText($("bank-verify-note"), onDate ? "bank.firstDebitNote" : "bank.redirectNote");
  if (!onDate) return;
  const params = debitNoticeParams();
  if (isContractOnly()) setText(note, "bank.contractOnDate");
  else if (params) setText(note, "bank.debitOnDate", params);
  else setText(note, "bank.debitDateLater");
}

function renderAccountType(): void {
  const type = Number($<HTMLSelectElement>("account_type").value);
  const label = document.querySelector('label[for="account_number"]');
  if (label) setText(label, "bank.accountNumber", { type: { key: accountTypeKey[type] ?? "bank.ordinary" } });
}

function renderChoices(list: HTMLElement, entries: BankDirectoryEntry[], choose: (entry: BankDirectoryEntry) => void) {
  list.replaceChildren(
    ...entries.map((entry) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "bank-choice";
      setText(button, "bank.choice", { name: entry.name, code: entry.code, kana: entry.kana });
      button.addEventListener("click", () => choose(entry));
      item.append(button);
      return item;
    }),
  );
}

/** A bank the merchant's 口座振替 contracts do not cover: a line saying so, not a choice. */
function outsideContractsItem(entry: BankDirectoryEntry): HTMLElement {
  const item = document.createElement("li");
  item.className = "bank-outside-contracts";
  setText(item, "bank.outsideContracts", { name: entry.name, code: entry.code });
  return item;
}

async function searchBanks(query: string): Promise<void> {
  const list = $("bank-results");
  if (!query) return renderChoices(list, [], () => {});
  try {
    const { banks, outsideContracts } = await call(() => page.searchBanks({ token: state.token, query, limit: 8 }));
    renderChoices(list, banks, (bank) => {
      input("bank_code").value = bank.code;
      input("branch_code").value = "";
      setRaw($("branch-name"), "");
      renderChoices(list, [], () => {});
      void showChosenBank();
      $(bank.code === yuchoBankCode ? "yucho-kigo" : "branch-search").focus();
    });
    // Banks outside the merchant's contracts: said plainly, never offered.
    list.append(...outsideContracts.map(outsideContractsItem));
  } catch {
    // a search that fails leaves the code fields, which still work
  }
}

async function searchBranches(query: string): Promise<void> {
  const list = $("branch-results");
  const bankCode = input("bank_code").value;
  if (!query || !/^[0-9]{4}$/.test(bankCode)) return renderChoices(list, [], () => {});
  try {
    const { branches } = await call(() => page.searchBranches({ token: state.token, bankCode, query, limit: 8 }));
    renderChoices(list, branches, (branch) => {
      input("branch_code").value = branch.code;
      setText($("branch-name"), "bank.chosen", { name: branch.name, code: branch.code });
      renderChoices(list, [], () => {});
      input("account_number").focus();
    });
  } catch {
    // as above
  }
}

/** The chosen bank's and branch's names in full, and the ゆうちょ fields for bank 9900. */
async function showChosenBank(): Promise<void> {
  const bankCode = input("bank_code").value;
  const branchCode = input("branch_code").value;
  const yucho = bankCode === yuchoBankCode;
  $("yucho-fields").hidden = !yucho;
  $("branch-search-field").hidden = yucho;
  if (!/^[0-9]{4}$/.test(bankCode)) return setRaw($("bank-name"), "");
  try {
    const found = await call(() => page.searchBranches({ token: state.token, bankCode, query: branchCode, limit: 1 }));
    if (found.bank) setText($("bank-name"), "bank.chosen", { name: found.bank.name, code: found.bank.code });
    const branch = found.branches.find((entry) => entry.code === branchCode);
    if (branch) setText($("branch-name"), "bank.chosen", { name: branch.name, code: branch.code });
    else setRaw($("branch-name"), "");
  } catch {
    setRaw($("bank-name"), "");
  }
}

/**
 * The 記号・番号 converted as they are typed. Once either is typed, the 店番 and 口座番号 are the
 * conversion's and nothing else: a 記号・番号 that does not convert empties them (a typo must never
 * leave the previous account to be registered) and says why, as soon as the entry looks finished
 * (a whole 番号, an earlier conversion being retyped, or the field left).
 */
function convertYucho(event: Event): void {
  const kigo = input("yucho-kigo");
  const bango = input("yucho-bango");
  const result = $("yucho-result");
  const converted = yuchoToZengin(kigo.value, bango.value);
  // What the line under the fields said last: a conversion, a problem, or nothing yet.
  const shown = result.dataset.shown ?? "";
  for (const field of [kigo, bango]) field.removeAttribute("aria-invalid");
  if (!converted.ok) {
    const typed = `${kigo.value}${bango.value}`.trim() !== "";
    if (typed || shown === "converted") for (const id of ["branch_code", "account_number"]) input(id).value = "";
    const finished = event.type === "change" || shown !== "" || bango.value.trim().length >= 8;
    result.dataset.shown = typed && finished ? "problem" : "";
    if (!typed || !finished) {
      setRaw(result, "");
      return;
    }
    (converted.field === "kigo" ? kigo : bango).setAttribute("aria-invalid", "true");
    setText(result, `bank.yucho.${converted.problem}`);
    void showChosenBank();
    return;
  }
  result.dataset.shown = "converted";
  const { branchCode, branchName, accountType, accountNumber } = converted.account;
  input("branch_code").value = branchCode;
  input("account_number").value = accountNumber;
  $<HTMLSelectElement>("account_type").value = String(accountType);
  renderAccountType();
  setText(result, "bank.yuchoResult", {
    branch: branchCode,
    name: branchName,
    type: { key: accountTypeKey[accountType] },
    number: accountNumber,
  });
  void showChosenBank();
}

/** What the bank will hold (the server's rule, domain/kana.ts, run here as a preview). */
function previewHolder(): void {
  const typed = toKatakana(input("account_holder").value);
  const bankForm = typed ? normaliseBankKana(typed) : undefined;
  if (bankForm?.ok) setText($("holder-preview"), "bank.holderPreview", { value: bankForm.value });
  else if (bankForm && refusedCharacterOf(bankForm.reason))
    setText($("holder-preview"), "bank.holderRefused", { char: refusedCharacterOf(bankForm.reason)! });
  else setRaw($("holder-preview"), "");
}

/** The character the 全銀協 rules refused, from the domain's reason (`"ｦ" cannot be used in …`). */
function refusedCharacterOf(reason: string): string | undefined {
  return /"(.+?)" cannot be used in/u.exec(reason)?.[1];
}

export async function linkBank(form: HTMLFormElement): Promise<void> {
  const values = readForm(form, "bank");
  if (!values) return;
  keepBankFields(); // as normalised (katakana, half-width digits), for the way back
  let response: Awaited<ReturnType<typeof page.linkBankAccount>>;
  try {
    response = await call(() =>
      page.linkBankAccount({
        token: state.token,
        bankCode: values.bank_code,
        branchCode: values.branch_code,
        accountType: Number(values.account_type) as BankAccountType,
        accountNumber: values.account_number,
        accountHolder: values.account_holder,
      }),
    );
  } catch (error) {
    const refused = (error as PageError).field === "account_holder" && (error as PageError).refusedCharacter;
    if (refused) {
      // The character named, in the page's language, beside the field (the server's rule, widened for the merchant).
      const field = input("account_holder");
      field.setAttribute("aria-invalid", "true");
      setText($("account_holder-error"), "bank.holderRefused", { char: refused });
      field.focus();
      return;
    }
    if (showServerError(form, "bank", error as PageError)) await load();
    return;
  }
  const bankPage = safeUrl(response.bankRedirectUrl);
  if (bankPage) {
    // The bank's own page: the customer authenticates there and comes back to /pay/{token}/bank-return.
    announce("bank.toBank");
    location.assign(bankPage);
    return;
  }
  keep({ bankVerified: false });
  state.reviewingBank = false;
  announce("bank.linked");
  // The session again: the account as linked with its holder, and under a debit date the date,
  // which depends on the contract covering the account's bank.
  return load();
}

/** Search as the customer types, the ゆうちょ conversion, the type and the holder preview. */
export function wireBank(): void {
  const searchAsTyped = (field: HTMLInputElement, search: (query: string) => Promise<void>) =>
    field.addEventListener("input", () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => void search(field.value.trim()), 150);
    });
  searchAsTyped(input("bank-search"), searchBanks);
  searchAsTyped(input("branch-search"), searchBranches);
  for (const id of ["bank_code", "branch_code"]) $(id).addEventListener("change", () => void showChosenBank());
  for (const id of ["yucho-kigo", "yucho-bango"])
    for (const type of ["input", "change"]) $(id).addEventListener(type, convertYucho);
  $("account_type").addEventListener("change", renderAccountType);
  $("account_holder").addEventListener("input", previewHolder);
  $("form-bank").addEventListener("input", keepBankFields);
  $("form-bank").addEventListener("change", keepBankFields);
  $("bank-keep").addEventListener("click", keepConfirmedAccount);
  if (bankOutcome) {
    // Back from the bank: the outcome is shown once; the address loses it (a reload asks the server).
    history.replaceState(null, "", location.pathname);
    keep({ bankVerified: bankOutcome === "verified" });
    if (bankOutcome === "verified") announce("bank.outcome.verified");
    // Another account the bank did not confirm: the bank step says why, with the earlier account kept.
    else state.reviewingBank = true;
  }
}
