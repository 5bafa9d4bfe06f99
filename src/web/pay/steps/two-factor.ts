import { timestampDate } from "@bufbuild/protobuf/wkt";
import { session, load, render } from "../session.js";
import { readForm, setFieldError, showServerError, showStepError } from "../form.js";
import { $, announce, input, setRaw, setText, state } from "../page.js";
import { keep, kept } from "../kept.js";
import { call, page, type PageError } from "../rpc.js";
import { limits } from "../../../domain/limits.js";

/** Step 1: the 6-digit code e-mailed to the customer ("確認コード" on the page and in the mail). */
const code = {
  sent: false,
  expiresAt: undefined as Date | undefined,
  resendAvailableAt: 0,
  timer: 0 as ReturnType<typeof setInterval> | 0,
};

/** A code sent before a reload, still valid: the code field again, with the resend wait. */
function restoreSentCode(): void {
  const sent = kept().code;
  if (code.sent || !sent || (sent.expiresAt !== undefined && sent.expiresAt <= Date.now())) return;
  code.sent = true;
  code.expiresAt = sent.expiresAt === undefined ? undefined : new Date(sent.expiresAt);
  startResendCountdown(new Date(sent.resendAvailableAt));
}

export function renderTwoFactor(): void {
  restoreSentCode();
  const email = session().emailHint;
  if (code.sent) setText($("two-factor-intro"), "twoFactor.sentIntro", { email, until: code.expiresAt });
  else setText($("two-factor-intro"), "twoFactor.intro", { email });
  $("send-code").hidden = code.sent;
  $("form-two-factor").hidden = !code.sent;
  updateResendButton();
}

export async function sendCode(isResend: boolean): Promise<void> {
  showStepError("two-factor", "");
  try {
    const response = await call(() => page.sendTwoFactorCode({ token: state.token }));
    code.sent = true;
    if (response.emailHint) session().emailHint = response.emailHint;
    code.expiresAt = response.expiresAt ? timestampDate(response.expiresAt) : undefined;
    const resendAt = response.resendAvailableAt ? timestampDate(response.resendAvailableAt) : undefined;
    startResendCountdown(resendAt);
    keep({ code: { expiresAt: code.expiresAt?.getTime(), resendAvailableAt: resendAt?.getTime() ?? Date.now() } });
    announce(isResend ? "twoFactor.resent" : "twoFactor.sent");
  } catch (error) {
    const refused = error as PageError;
    // Throttled: a code was sent a moment ago (before a reload, say), so the form is still useful.
    if (refused.code === "resource_exhausted") code.sent = true;
    if (showServerError($<HTMLFormElement>("form-two-factor"), "two-factor", refused)) await load();
    if (state.currentStep !== "twoFactor") return;
  }
  renderTwoFactor();
  const field = input("code");
  if (code.sent) {
    field.value = "";
    field.focus();
  }
}

function startResendCountdown(availableAt: Date | undefined): void {
  // The server enforces the throttle; this only shows it (capped, in case the clocks disagree).
  const wait = availableAt
    ? Math.min(Math.max(availableAt.getTime() - Date.now(), 0), limits.hostedPageResendWaitMaxMs)
    : 0;
  code.resendAvailableAt = Date.now() + wait;
  clearInterval(code.timer);
  code.timer = setInterval(updateResendButton, 1000);
  updateResendButton();
}

export function updateResendButton(): void {
  const button = $<HTMLButtonElement>("resend-code");
  const seconds = Math.ceil((code.resendAvailableAt - Date.now()) / 1000);
  const waiting = seconds > 0;
  button.disabled = waiting || $("form-two-factor").getAttribute("aria-busy") === "true";
  if (waiting) setText($("resend-wait"), "twoFactor.resendIn", { seconds });
  else {
    setRaw($("resend-wait"), "");
    clearInterval(code.timer);
  }
}

export async function verifyCode(form: HTMLFormElement): Promise<void> {
  const values = readForm(form, "two-factor");
  if (!values) return;
  const field = input("code");
  try {
    const response = await call(() => page.verifyTwoFactorCode({ token: state.token, code: values.code }));
    if (response.verified) {
      session().twoFactorVerified = true;
      clearInterval(code.timer);
      announce("twoFactor.verified");
      render();
      return;
    }
    const attempts = response.attemptsLeft;
    field.value = "";
    setFieldError(field, "");
    field.setAttribute("aria-invalid", "true");
    setText($("code-error"), attempts > 0 ? "twoFactor.wrong" : "twoFactor.noAttempts", { attempts });
    field.focus();
  } catch (error) {
    const refused = error as PageError;
    if (refused.code !== "invalid_argument" && refused.code !== "failed_precondition") {
      // Link lapsed, server busy, network: not about the code itself.
      if (showServerError(form, "two-factor", refused)) await load();
      return;
    }
    field.setAttribute("aria-invalid", "true");
    setText($("code-error"), refused.code === "invalid_argument" ? "field.code" : "twoFactor.unusable");
    field.focus();
    // Verified in another tab, say: the server's view of the link decides the step.
    if (refused.code === "failed_precondition") await load();
  }
}
