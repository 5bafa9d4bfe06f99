import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ChargeStatus, ErrorType, PaymentErrorCode, PaymentWorkflow } from "../../../../gen/payments/v1/enums_pb.js";
import { isContractOnly, load, render, session, showProblem } from "../session.js";
import { showStepError } from "../form.js";
import { $, announce, formatYen, safeUrl, setRaw, setText, state } from "../page.js";
import { call, page, type PageError, reasonKey } from "../rpc.js";
import { debitNoticeParams, debitsOnDate } from "../debit-date.js";
import { keep, kept } from "../kept.js";

/**
 * Step 3: the consent screen and the approval. It names the account to be debited (masked), when
 * it is debited, the shop's contact and the versioned direct-debit terms; the button says that
 * pressing it accepts them, and their version is quoted back.
 */
let approving = false;

export function renderApprove(): void {
  const { merchant, bankAccount, terms } = session();
  const amount = formatYen(session().amount);
  const contractOnly = isContractOnly();
  const onDate = debitsOnDate();
  const dated = debitNoticeParams();
  setText($("approve-heading"), contractOnly ? "approve.headingContract" : "approve.heading");
  setText($("approve-intro"), introKey(contractOnly, onDate, Boolean(dated)), {
    amount,
    merchant: merchant?.name ?? "",
    ...dated,
  });
  setRaw($("approve-account"), bankAccount?.display ?? "");
  $("approve-details").hidden = !bankAccount?.display;
  // The holder as the bank holds it, and that the bank confirmed the account (issue #31 finding 8).
  setRaw($("approve-holder"), session().accountHolder);
  $("approve-holder-row").hidden = !session().accountHolder;
  $("approve-verified").hidden = !kept().bankVerified;
  setText($("approve-timing"), timingKey(onDate, Boolean(dated)), dated);
  const contact = [merchant?.supportEmail, merchant?.supportPhone, merchant?.supportUrl].filter(Boolean).join(" / ");
  setRaw($("approve-contact"), contact);
  $("approve-contact-row").hidden = !contact;
  $("terms-block").hidden = !terms?.text;
  setRaw($("terms-text"), terms?.text ?? "");
  const consent = Boolean(terms?.text);
  const button = contractOnly
    ? consent
      ? "approve.buttonContractConsent"
      : "approve.buttonContract"
    : consent
      ? onDate
        ? "approve.buttonConsentOnDate"
        : "approve.buttonConsent"
      : onDate
        ? "approve.buttonOnDate"
        : "approve.button";
  if (!approving) setText($("approve"), button, { amount });
}

/** What the consent says is approved: under a debit date, that date and the amount. */
function introKey(contractOnly: boolean, onDate: boolean, dated: boolean): string {
  if (contractOnly) return "approve.introContract";
  if (!onDate) return "approve.intro";
  return dated ? "approve.introOnDate" : "approve.introOnDateUnknown";
}

/** When the account is debited, by workflow: at approval, or on the debit date. */
function timingKey(onDate: boolean, dated: boolean): string {
  const { workflow } = session();
  if (workflow === PaymentWorkflow.CONTRACT) return onDate ? "approve.timingContractOnDate" : "approve.timingContract";
  if (workflow === PaymentWorkflow.CONTRACT_WITH_CHARGE && (!onDate || dated))
    return onDate ? "approve.timingContractWithChargeOnDate" : "approve.timingContractWithCharge";
  if (!onDate) return "approve.timingCharge";
  return dated ? "approve.timingChargeOnDate" : "approve.timingChargeOnDateUnknown";
}

export async function approve(): Promise<void> {
  // Disabled before the request starts: a double click sends one request (the server also
  // answers a repeated approval with the first outcome, for reloads and second tabs).
  if (approving) return;
  approving = true;
  const button = $<HTMLButtonElement>("approve");
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  setText(button, "approve.working");
  showStepError("approve", "");
  announce("approve.working");
  let result: Awaited<ReturnType<typeof page.approvePayment>>["result"];
  try {
    ({ result } = await call(() =>
      page.approvePayment({ token: state.token, termsVersion: session().terms?.version ?? "" }),
    ));
  } catch (error) {
    await approvalNotDone((error as PageError).messageKey);
    return;
  }
  const outcome = result?.outcome;
  if (outcome?.case === "success") {
    const { chargeStatus, redirectUrl, error, chargeId, contractId, completedAt, debitDate } = outcome.value;
    Object.assign(session(), { completed: true, chargeStatus, chargeId, contractId, completedAt, debitDate });
    keep({ bank: undefined });
    finish(chargeStatus, redirectUrl, { errorType: error?.code });
    return;
  }
  const refusal = outcome?.case === "error" ? outcome.value : undefined;
  const backUrl = refusal?.redirectUrl || session().merchant?.redirect?.failureUrl;
  if (refusal?.errorCode === PaymentErrorCode.EXPIRED) {
    showProblem({ heading: "problem.expiredHeading", text: "problem.expiredText", backUrl });
  } else if (refusal?.redirectUrl) {
    // A failed payment (the merchant's failure_url is where it ends).
    Object.assign(session(), { completed: true, chargeStatus: ChargeStatus.FAILURE });
    finish(ChargeStatus.FAILURE, refusal.redirectUrl, { paymentErrorCode: refusal.errorCode });
  } else {
    // Refused before anything was charged (a step missing, say).
    await approvalNotDone(reasonKey({ paymentErrorCode: refusal?.errorCode }));
  }
}

/** The approval did not happen: say why, and let the server's view of the link decide what is next. */
async function approvalNotDone(reason: string): Promise<void> {
  const button = $<HTMLButtonElement>("approve");
  approving = false;
  button.disabled = false;
  button.removeAttribute("aria-busy");
  renderApprove();
  showStepError("approve", reason);
  await load();
  if (state.currentStep === "approve") button.focus();
}

type Reason = { paymentErrorCode?: PaymentErrorCode; errorType?: ErrorType };

/**
 * The outcome, then the merchant's page at once (success_url, or failure_url whose error_code
 * lets the merchant explain): no timed redirect that could rush anyone. A reload shows the outcome.
 */
function finish(chargeStatus: ChargeStatus, redirectUrl: string, reason: Reason): void {
  render();
  renderDone(chargeStatus, redirectUrl, reason);
  const url = safeUrl(redirectUrl);
  if (url) location.assign(url);
}

export function renderDone(chargeStatus: ChargeStatus, redirectUrl: string, reason: Reason): void {
  const section = $("step-done");
  const failed = chargeStatus === ChargeStatus.FAILURE;
  section.className = `card step ${failed ? "done-failed" : "done-ok"}`;
  let heading = "done.success";
  if (failed) heading = "done.failed";
  else if (chargeStatus === ChargeStatus.PENDING || chargeStatus === ChargeStatus.WAITING_EKYC)
    heading = "done.pending";
  else if (isContractOnly()) heading = "done.successContract";
  setText($("done-heading"), heading);
  const url = safeUrl(redirectUrl);
  const why = reasonKey(reason);
  if (failed) setText($("done-text"), approving ? "done.failedRedirecting" : why, { reason: { key: why } });
  else if (approving) setText($("done-text"), "done.redirecting");
  else setText($("done-text"), chargeStatus === ChargeStatus.WAITING_EKYC ? "done.waitingKyc" : "done.text");
  // Accepted for a debit date: when and how much (the same words as the notice e-mail).
  const dated = !failed && chargeStatus === ChargeStatus.PENDING ? debitNoticeParams() : undefined;
  $("done-debit").hidden = !dated;
  if (dated) setText($("done-debit"), "done.debitOnDate", dated);
  const link = $("done-continue");
  link.hidden = !url;
  if (url) link.setAttribute("href", url);
  // The reference to quote to the shop: the charge's id (a contract-only link's: its contract's),
  // when it was settled, and the account it debits (issue #31 finding 8).
  const { chargeId, contractId, completedAt, bankAccount, accountHolder } = session();
  const reference = chargeId || contractId;
  $("done-reference").hidden = !reference;
  setRaw($("done-charge-id"), reference);
  if (completedAt) setText($("done-time"), "dateTime", { when: timestampDate(completedAt) });
  $("done-account-row").hidden = failed || !bankAccount?.display;
  setRaw($("done-account"), bankAccount?.display ?? "");
  $("done-holder-row").hidden = failed || !accountHolder;
  setRaw($("done-holder"), accountHolder);
}
