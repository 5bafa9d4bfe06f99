import { PaymentWorkflow } from "../../../gen/payments/v1/enums_pb.js";
import type { PaymentSession } from "../../../gen/payments/v1/hosted_page_service_pb.js";
import { $, applyLanguage, safeUrl, setText, showView, state } from "./page.js";

/**
 * What the steps (steps/*.ts) share with the flow that shows them: the session, the problem view,
 * and a way to reload and re-render. flow.ts imports the steps and connects itself here at start,
 * so no step imports flow.ts (the import graph has no cycle: docs/architecture.md#layers).
 */

/** The PaymentSession InitiatePayment answered (kept up to date as the steps complete). */
export const current: { session: PaymentSession | undefined } = { session: undefined };

export function session(): PaymentSession {
  if (!current.session) throw new Error("no session yet");
  return current.session;
}

export function showProblem(problem: { heading: string; text: string; backUrl?: string; retry?: boolean }): void {
  setText($("problem-heading"), problem.heading);
  setText($("problem-text"), problem.text);
  const back = $("problem-back");
  const url = safeUrl(problem.backUrl);
  back.hidden = !url;
  if (url) back.setAttribute("href", url);
  $("problem-retry").hidden = !problem.retry;
  state.currentStep = "problem";
  showView("view-problem");
  applyLanguage(current.session?.merchant?.name);
  $("problem-heading").focus();
}

export function isContractOnly(): boolean {
  return session().workflow === PaymentWorkflow.CONTRACT || !session().amount;
}

let flow: { load(): Promise<void>; render(): void } | undefined;

/** Called once by flow.ts: the steps' load() and render() are its own. */
export function connectFlow(connected: { load(): Promise<void>; render(): void }): void {
  flow = connected;
}

/** Asks the server for the session again and shows the step it is on. */
export function load(): Promise<void> {
  if (!flow) throw new Error("the flow is not connected");
  return flow.load();
}

/** Shows the step the session is on. */
export function render(): void {
  if (!flow) throw new Error("the flow is not connected");
  flow.render();
}
