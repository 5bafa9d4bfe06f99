import { h } from "./dom.js";

/**
 * What the pages that confirm a CSV file with a TOTP code share (the charge batches, the
 * subscription import): the code's field, and the challenge of a file uploaded in this tab (the
 * reads of a batch do not return it).
 */
export function totpCodeInput(): HTMLInputElement {
  return h("input", {
    inputmode: "numeric",
    pattern: "[0-9]{6}",
    maxlength: 6,
    autocomplete: "one-time-code",
    required: true,
  });
}

export function rememberChallenge(batchId: string, challengeId: string): void {
  sessionStorage.setItem(`furikomi.challenge.${batchId}`, challengeId);
}

export function rememberedChallenge(batchId: string): string | null {
  return sessionStorage.getItem(`furikomi.challenge.${batchId}`);
}
