import { $, setRaw, setText } from "./page.js";
import type { PageError } from "./rpc.js";

const katakanaPattern = /^[\p{Script=Katakana}ー・ 　]+$/u;
/** What a bank holds in an account name, before the server's normalisation (hosted_page_service.proto). */
const bankKanaPattern = /^[ァ-ヶーｦ-ﾟA-Z0-9 ()./-]+$/u;

export function showStepError(step: string, key?: string): void {
  const box = $(`${step}-error`);
  if (key) setText(box, key);
  else setRaw(box, "");
}

export function setFieldError(field: HTMLInputElement, key?: string): void {
  const message = $(`${field.name}-error`);
  if (key) {
    field.setAttribute("aria-invalid", "true");
    setText(message, key);
  } else {
    field.removeAttribute("aria-invalid");
    setRaw(message, "");
  }
}

function clearErrors(form: HTMLFormElement, step: string): void {
  for (const field of form.querySelectorAll<HTMLInputElement>("input[name]"))
    if (field.type !== "radio") setFieldError(field, "");
  showStepError(step, "");
}

export function fieldMessageKey(field: HTMLInputElement): string {
  if (field.dataset.kana !== undefined) return "field.kana";
  const key = `field.${field.name}`;
  return ["code", "bank_code", "branch_code", "account_number", "account_holder", "birth_date"].includes(field.name)
    ? key
    : "field.invalid";
}

/**
 * Shows a server error next to the field it concerns when it names one, else above the form.
 * Answers whether the link must be read again (it lapsed, is unknown, or a step ran out of order).
 */
export function showServerError(form: HTMLFormElement, step: string, error: PageError): boolean {
  if (error.linkExpired || error.code === "not_found") return true;
  const field = error.field ? form.querySelector<HTMLInputElement>(`input[name="${error.field}"]`) : null;
  if (field && error.code === "invalid_argument") {
    setFieldError(field, fieldMessageKey(field));
    field.focus();
    return false;
  }
  showStepError(step, error.messageKey);
  return error.code === "failed_precondition";
}

// Full-width digits (as a Japanese keyboard types them) are digits.
export const toHalfWidthDigits = (value: string) => value.normalize("NFKC").replace(/[\s-]/g, "");
/** Hiragana and half-width katakana become katakana; spaces are kept between names. */
export const toKatakana = (value: string) =>
  value
    .normalize("NFKC")
    .replace(/[\u3041-\u3096]/g, (kana) => String.fromCharCode(kana.charCodeAt(0) + 0x60))
    .replace(/\s+/g, " ")
    .trim();

/** Normalises every field of the form and marks the wrong ones; returns the values, or undefined. */
export function readForm(form: HTMLFormElement, step: string): Record<string, string> | undefined {
  clearErrors(form, step);
  const values: Record<string, string> = {};
  let firstInvalid: HTMLInputElement | undefined;
  for (const select of form.querySelectorAll<HTMLSelectElement>("select[name]")) values[select.name] = select.value;
  for (const field of form.querySelectorAll<HTMLInputElement>("input[name]")) {
    if (field.type === "radio") {
      if (field.checked) values[field.name] = field.value;
      continue;
    }
    if (field.inputMode === "numeric") field.value = toHalfWidthDigits(field.value);
    else if (field.dataset.kana !== undefined || field.dataset.bankKana !== undefined)
      field.value = toKatakana(field.value);
    else field.value = field.value.trim();
    const value = field.value;
    let problem: string | undefined;
    if (!value && field.required) problem = "field.required";
    else if (field.pattern && !new RegExp(`^(?:${field.pattern})$`).test(value)) problem = fieldMessageKey(field);
    else if (field.dataset.kana !== undefined && !katakanaPattern.test(value)) problem = "field.kana";
    else if (field.dataset.bankKana !== undefined && !bankKanaPattern.test(value)) problem = "field.account_holder";
    else if (field.type === "date" && !validBirthDate(value)) problem = "field.birth_date";
    if (problem) {
      setFieldError(field, problem);
      firstInvalid ??= field;
    }
    values[field.name] = value;
  }
  if (firstInvalid) {
    showStepError(step, "field.summary");
    firstInvalid.focus();
    return undefined;
  }
  return values;
}

function validBirthDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return (
    !Number.isNaN(date.getTime()) &&
    date.toISOString().startsWith(value) &&
    value >= "1900-01-01" &&
    date.getTime() < Date.now()
  );
}

/** Runs a step's request with its buttons disabled, so a double submit sends one request. */
export async function whileBusy(form: HTMLElement, work: () => Promise<void>, after?: () => void): Promise<void> {
  const buttons = form.querySelectorAll("button");
  if (form.getAttribute("aria-busy") === "true") return;
  form.setAttribute("aria-busy", "true");
  for (const button of buttons) button.disabled = true;
  try {
    await work();
  } finally {
    form.removeAttribute("aria-busy");
    for (const button of buttons) button.disabled = false;
    after?.();
  }
}
