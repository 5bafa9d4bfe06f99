import { describe, expect, it } from "vitest";
import { createLogger, redactPaths } from "./logger.js";

describe("the log's redaction", () => {
  it("names only keys inside objects, so a line of plain top-level values needs no redaction", () => {
    for (const path of redactPaths) expect(path).toMatch(/^[^.]+\..+$/);
  });

  it("writes the access log's success line alike with and without it", () => {
    const lines: string[] = [];
    const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
    const line = {
      requestId: "r-1",
      method: "payments.v1.PaymentService/GetCharge",
      code: "ok",
      ms: 1,
      merchantId: "m",
    };
    logger.info(line, "call");
    logger.child({}, { redact: [] }).info(line, "call");
    const [redacted, plain] = lines.map((l) => ({ ...JSON.parse(l), time: 0 }));
    expect(plain).toEqual(redacted);
    expect(redacted).toMatchObject(line);
  });

  it("still redacts a secret inside an object", () => {
    const lines: string[] = [];
    createLogger("info", { write: (line: string) => void lines.push(line) }).info({ key: { secret: "s3cret" } }, "x");
    expect(lines[0]).not.toContain("s3cret");
  });
});
