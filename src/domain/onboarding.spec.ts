import { describe, expect, it } from "vitest";
import { chargingBlock, onboardingStates } from "./onboarding.js";

describe("chargingBlock", () => {
  it("lets only a complete merchant charge live money, and no suspended merchant anywhere", () => {
    const live = onboardingStates.map((state) => [state, chargingBlock(state, true) === undefined]);
    expect(live).toEqual([
      ["incomplete", false],
      ["in_review", false],
      ["complete", true],
      ["suspended", false],
    ]);
    const sandbox = onboardingStates.map((state) => [state, chargingBlock(state, false) === undefined]);
    expect(sandbox).toEqual([
      ["incomplete", true],
      ["in_review", true],
      ["complete", true],
      ["suspended", false],
    ]);
  });

  it("says why, and that it is not temporary", () => {
    expect(chargingBlock("incomplete", true)).toMatch(
      /^merchant onboarding is incomplete: .*\(not a temporary error\)$/,
    );
    expect(chargingBlock("suspended", false)).toMatch(/^the merchant is suspended .*\(not a temporary error\)$/);
  });
});
