import { describe, expect, it } from "vitest";
import { DebitTiming } from "../../gen/payments/v1/enums_pb.js";
import { currentMandateTerms, mandateTermsText } from "./mandate-terms.js";

describe("the direct-debit terms", () => {
  it("are the version that says when the account is debited", () => {
    expect(currentMandateTerms(DebitTiming.AT_APPROVAL).version).toBe("2026-11-24");
    expect(currentMandateTerms(DebitTiming.AT_APPROVAL).text).toContain("承認時に引き落とされます");
    const onDate = currentMandateTerms(DebitTiming.ON_DEBIT_DATE);
    expect(onDate.version).toBe("2026-11-28");
    expect(onDate.text).toContain("承認の時点では引き落とされません");
    expect(onDate.text).not.toContain("承認時に引き落とされます");
  });

  it("keep every version on record, so a mandate is shown the text it agreed to", () => {
    expect(mandateTermsText("2026-11-24")).toContain("口座振替規定（2026-11-24 版）");
    expect(mandateTermsText("2026-11-28")).toContain("口座振替規定（2026-11-28 版）");
    expect(mandateTermsText("forged")).toBeUndefined();
  });
});
