import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ChargeStatus, ErrorType, PaymentErrorCode, PaymentWorkflow } from "../../../gen/payments/v1/enums_pb.js";
import type { HostedPaymentError, PaymentSession } from "../../../gen/payments/v1/hosted_page_service_pb.js";
import { $, applyLanguage, formatYen, safeUrl, setRaw, setText, showView, state } from "./page.js";
import { call, page, PageError, reasonKey } from "./rpc.js";
import { renderApprove, renderDone } from "./steps/approve.js";
import { renderBank } from "./steps/bank.js";
import { renderTwoFactor } from "./steps/two-factor.js";
import { connectFlow, current, isContractOnly, session, showProblem } from "./session.js";

export { current, showProblem };

/** InitiatePayment answered result.error: an expired link, an unknown one, or a triggered error. */
function showInitiateError(error: HostedPaymentError): void {
  const backUrl = error.redirectUrl || error.merchant?.redirect?.failureUrl;
  if (error.errorCode === PaymentErrorCode.EXPIRED)
    showProblem({ heading: "problem.expiredHeading", text: "problem.expiredText", backUrl });
  else if (error.errorCode === PaymentErrorCode.NOT_FOUND)
    showProblem({ heading: "problem.unknownHeading", text: "problem.unknownText" });
  else
    showProblem({ heading: "problem.errorHeading", text: reasonKey({ paymentErrorCode: error.errorCode }), backUrl });
}

function showLoadFailure(error: PageError): void {
  if (error.code === "not_found" || error.code === "invalid_argument")
    showProblem({ heading: "problem.unknownHeading", text: "problem.unknownText" });
  else
    showProblem({
      heading: "problem.networkHeading",
      text: error.code === "network" ? "problem.networkText" : error.messageKey,
      retry: true,
    });
}

export async function load(): Promise<void> {
  let response: Awaited<ReturnType<typeof page.initiatePayment>>;
  try {
    response = await call(() => page.initiatePayment({ token: state.token }));
  } catch (error) {
    showLoadFailure(error as PageError);
    return;
  }
  const outcome = response.result?.outcome;
  if (outcome?.case === "error") return showInitiateError(outcome.value);
  if (outcome?.case !== "session") return showLoadFailure(new PageError(undefined));
  current.session = outcome.value;
  if (current.session.detailsWithheld) {
    showProblem({ heading: "problem.finishedHeading", text: "problem.finishedText", backUrl: "" });
    return;
  }
  if (current.session.completed && current.session.error?.code === ErrorType.PAYMENT_LINK_EXPIRED) {
    showProblem({
      heading: "problem.expiredHeading",
      text: "problem.expiredText",
      backUrl: current.session.redirectUrl,
    });
    return;
  }
  renderSummary();
  render();
}

function renderSummary(): void {
  const { merchant, amount, description, expiresAt, workflow } = session();
  const name = merchant?.name ?? "";
  setRaw($("merchant-name"), name);
  setRaw($("merchant-initial"), (name || "?").trim().charAt(0).toUpperCase());
  const logo = $<HTMLImageElement>("merchant-logo");
  const logoUrl = safeUrl(merchant?.logoUrl);
  if (logoUrl) {
    // Shown once it loads; a broken logo leaves the merchant's initial in its place.
    logo.addEventListener(
      "load",
      () => {
        logo.hidden = false;
        $("merchant-initial").hidden = true;
      },
      { once: true },
    );
    logo.src = logoUrl;
  }
  if (isContractOnly()) setText($("amount"), "noCharge");
  else setRaw($("amount"), formatYen(amount));
  $("description-row").hidden = !description;
  setRaw($("description"), description);
  if (expiresAt) setText($("expires-at"), "expiresAtValue", { when: timestampDate(expiresAt) });
  const workflowKey = `workflow.${PaymentWorkflow[workflow]}`;
  if (workflow !== PaymentWorkflow.UNSPECIFIED) setText($("workflow-note"), workflowKey);
}

type StepId = "twoFactor" | "bank" | "kyc" | "approve";

/** The steps this link needs, in order, and whether each is done. */
function stepsOf(current: PaymentSession): Array<{ id: StepId; done: boolean }> {
  const steps: Array<{ id: StepId; done: boolean }> = [{ id: "twoFactor", done: current.twoFactorVerified }];
  if (current.needsBankLink || current.bankLinked) steps.push({ id: "bank", done: current.bankLinked });
  if (current.needsKyc || current.kycSubmitted) steps.push({ id: "kyc", done: current.kycSubmitted });
  steps.push({ id: "approve", done: current.completed });
  return steps;
}

const sectionOf: Record<StepId | "done", string> = {
  twoFactor: "step-two-factor",
  bank: "step-bank",
  kyc: "step-kyc",
  approve: "step-approve",
  done: "step-done",
};

export function render(): void {
  const current = session();
  const steps = stepsOf(current);
  const reviewing = state.reviewingBank && current.needsBankLink && current.bankLinked;
  const step: StepId | "done" = current.completed
    ? "done"
    : reviewing
      ? "bank"
      : (steps.find((s) => !s.done)?.id ?? "approve");

  $("progress").replaceChildren(
    ...steps.map((item, index) => {
      const li = document.createElement("li");
      const isCurrent = item.id === step;
      const failed = item.id === "approve" && item.done && current.chargeStatus === ChargeStatus.FAILURE;
      if (item.done) li.className = failed ? "failed" : "done";
      if (isCurrent) li.setAttribute("aria-current", "step");
      const mark = document.createElement("span");
      mark.className = "mark";
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = failed ? "✕" : item.done ? "✓" : `${index + 1}`;
      const label = document.createElement("span");
      setText(label, item.id === "approve" && isContractOnly() ? "steps.approveContract" : `steps.${item.id}`);
      const status = document.createElement("span");
      status.className = "visually-hidden";
      // A failed step is said to have failed, never to be done.
      if (failed) setText(status, "stepFailed");
      else if (item.done) setText(status, "stepDone");
      else if (isCurrent) setText(status, "stepCurrent");
      li.append(mark, " ", label, status);
      return li;
    }),
  );

  $("expires-row").hidden = !current.expiresAt || current.completed;
  for (const [id, section] of Object.entries(sectionOf)) $(section).hidden = id !== step;
  if (step === "twoFactor") renderTwoFactor();
  if (step === "bank") renderBank();
  if (step === "approve") renderApprove();
  if (step === "done") renderDone(current.chargeStatus, current.redirectUrl, { errorType: current.error?.code });

  showView("view-payment");
  applyLanguage(current.merchant?.name);
  if (step === "approve" && current.needsBankLink) putBankStepBehindConsent();
  if (step !== state.currentStep) {
    state.currentStep = step;
    // Focus the new step's heading, so keyboard and screen-reader users start there.
    $(sectionOf[step]).querySelector<HTMLElement>(".step-heading")?.focus();
  }
}

/**
 * The browser's Back from the consent shows the bank step again (issue #31 finding 6), not the
 * bank's page the customer came back from: the consent gets a history entry of its own, over one
 * for the bank step. Back and Forward then move between the two within the page.
 */
function putBankStepBehindConsent(): void {
  if ((history.state as { furikomiStep?: string } | null)?.furikomiStep === "approve") return;
  history.replaceState({ furikomiStep: "bank" }, "", location.pathname);
  history.pushState({ furikomiStep: "approve" }, "", location.pathname);
}

/** Back (or Forward) between the bank step and the consent: the step of that history entry. */
function showStepOfHistory(event: PopStateEvent): void {
  if (!current.session || state.currentStep === "problem") return;
  state.reviewingBank = (event.state as { furikomiStep?: string } | null)?.furikomiStep === "bank";
  render();
}

addEventListener("popstate", showStepOfHistory);
connectFlow({ load, render });
