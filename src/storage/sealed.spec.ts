import { afterEach, describe, expect, it } from "vitest";
import { keyedHash, keyedHashes, seal, unseal, useSealingKey } from "./sealed.js";

describe("sealed secrets", () => {
  afterEach(() => useSealingKey(undefined));

  it("hides the value and opens it again", () => {
    useSealingKey("key-a");
    const sealed = seal("whsec_secret");
    expect(sealed).toMatch(/^sealed:v1:/);
    expect(sealed).not.toContain("whsec_secret");
    expect(seal("whsec_secret")).not.toBe(sealed);
    expect(unseal(sealed)).toBe("whsec_secret");
  });

  it("reads values stored before sealing as they are, and keeps empty values empty", () => {
    expect(unseal("whsec_legacy")).toBe("whsec_legacy");
    expect(seal("")).toBe("");
  });

  it("opens values sealed under a previous key during a rotation, and refuses without it", () => {
    useSealingKey("key-a");
    const old = seal("JBSWY3DPEHPK3PXP");
    const fromDevelopment = (() => {
      useSealingKey(undefined);
      return seal("dev");
    })();
    useSealingKey("key-b", ["key-a", ""]);
    expect(unseal(old)).toBe("JBSWY3DPEHPK3PXP");
    expect(unseal(fromDevelopment)).toBe("dev");
    useSealingKey("key-b");
    expect(() => unseal(old)).toThrow(/SECRETS_KEY_PREVIOUS/);
  });

  it("hashes with a key: equal values match, another key gives another hash, and the previous keys' hashes are still found", () => {
    useSealingKey("key-a");
    const underA = keyedHash("0001|001|1234567");
    expect(underA).toMatch(/^[0-9a-f]{64}$/);
    expect(keyedHash("0001|001|1234567")).toBe(underA);
    expect(keyedHash("0001|001|1234568")).not.toBe(underA);
    useSealingKey("key-b", ["key-a"]);
    expect(keyedHash("0001|001|1234567")).not.toBe(underA);
    expect(keyedHashes("0001|001|1234567")).toEqual([keyedHash("0001|001|1234567"), underA]);
  });
});
