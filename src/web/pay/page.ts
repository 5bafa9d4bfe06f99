import { formatJstDateTime, formatYen } from "../../domain/display-format.js";
import { messages, type Language } from "./messages.js";

export { formatYen };

const languageKey = "furikomi.pay.language";

/** What the page knows: the language, the link's token, and where the customer stands. */
export const state = {
  language: storedLanguage() as Language,
  token: decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? ""),
  sandbox: document.documentElement.dataset.mode === "sandbox",
  currentStep: "",
  /**
   * The bank step shown again after its account was confirmed: the browser's Back from the consent
   * (its history entry says so across a reload), or a new account the bank did not confirm.
   */
  reviewingBank: (history.state as { furikomiStep?: string } | null)?.furikomiStep === "bank",
};

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
export const input = (id: string) => $<HTMLInputElement>(id);

function storedLanguage(): Language {
  try {
    return localStorage.getItem(languageKey) === "en" ? "en" : "ja";
  } catch {
    return "ja";
  }
}

// A parameter is text, a number, a date (formatted in the language of the moment) or { key } (translated).
export type Param = string | number | Date | { key: string } | undefined;
export type Params = Record<string, Param>;

type MessageNode = string | ((params: Record<string, unknown>) => string) | { [key: string]: MessageNode };

/** The message at a dotted key in the current language, with its parameters filled in. */
export function t(key: string, params: Params = {}): string {
  let node: MessageNode | undefined = messages[state.language] as MessageNode;
  for (const part of key.split(".")) node = typeof node === "object" ? node[part] : undefined;
  if (node === undefined || typeof node === "object") return key;
  if (typeof node === "string") return node;
  return node(Object.fromEntries(Object.entries(params).map(([name, value]) => [name, formatParameter(value)])));
}

/** Whether a message exists (a reason the page has words for). */
export function hasMessage(key: string): boolean {
  return t(key) !== key;
}

function formatParameter(value: Param): unknown {
  if (value instanceof Date) return formatJstDateTime(value);
  if (value && typeof value === "object" && "key" in value) return t(value.key);
  return value;
}

/** Elements whose text is a message: re-rendered when the language changes. */
const translated = new Map<Element, { key: string; params?: Params }>();

export function setText(element: Element, key: string, params?: Params): void {
  translated.set(element, { key, params });
  element.textContent = t(key, params);
}

export function setRaw(element: Element, text: string): void {
  translated.delete(element);
  element.textContent = text;
}

export function applyLanguage(merchantName?: string): void {
  document.documentElement.lang = state.language;
  for (const [element, { key, params }] of translated) {
    if (element.isConnected) element.textContent = t(key, params);
    else translated.delete(element); // a progress item from an earlier render
  }
  const toggle = $<HTMLButtonElement>("lang-toggle");
  toggle.textContent = t("langToggle");
  toggle.setAttribute("aria-label", t("langToggleLabel"));
  toggle.lang = state.language === "ja" ? "en" : "ja";
  document.title = merchantName ? `${t("title")} – ${merchantName}` : t("title");
}

export function switchLanguage(merchantName?: string): void {
  state.language = state.language === "ja" ? "en" : "ja";
  try {
    localStorage.setItem(languageKey, state.language);
  } catch {
    // private mode: the switch still works for this page
  }
  applyLanguage(merchantName);
}

/** Only http(s) URLs leave the page (a redirect URL is the merchant's or the bank's, never a script). */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** Says a message to screen readers (a fresh text node after a tick, so a repeat is said again). */
export function announce(key: string, params?: Params): void {
  const live = $("live");
  live.textContent = "";
  setTimeout(() => setText(live, key, params), 50);
}

export function showView(id: string): void {
  for (const view of document.querySelectorAll<HTMLElement>(".view")) view.hidden = view.id !== id;
  $("main").setAttribute("aria-busy", "false");
}
