import { normalizeEmail } from "./customer.js";

/**
 * What the dashboard's customer search compares (docs/guide/dashboard.md#finding-things): the
 * start of the e-mail as stored (trimmed, lower-case), and part of the name or of the kana as a
 * staff member may type it — hiragana or katakana, full- or half-width, with or without the space
 * between family and given name.
 */
export function emailPrefixKey(input: string): string {
  return normalizeEmail(input);
}

/** Half-width to full-width (NFKC), hiragana to katakana, no spaces: ｻﾄｳ ﾊﾅｺ, さとう はなこ → サトウハナコ. */
export function kanaKey(input: string): string {
  return input
    .normalize("NFKC")
    .replace(/[\u3041-\u3096]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0x60))
    .replace(/\s+/g, "");
}

/** The name as compared: trimmed, lower-case Latin letters, full-width forms folded (NFKC). */
export function nameKey(input: string): string {
  return input.normalize("NFKC").trim().toLowerCase();
}
