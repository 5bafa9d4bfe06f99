import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getOption, hasOption, type DescFile } from "@bufbuild/protobuf";
import { Validator } from "@seriousme/openapi-schema-validator";
import { http } from "../../gen/google/api/annotations_pb.js";
import { file_payments_v1_customer_app_service } from "../../gen/payments/v1/customer_app_service_pb.js";
import { file_payments_v1_dashboard_service } from "../../gen/payments/v1/dashboard_service_pb.js";
import { file_payments_v1_hosted_page_service } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { file_payments_v1_payment_service } from "../../gen/payments/v1/payment_service_pb.js";
import { file_payments_v1_sandbox_service } from "../../gen/payments/v1/sandbox_service_pb.js";
import { file_payments_v1_subscription_service } from "../../gen/payments/v1/subscription_service_pb.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const documentText = readFileSync(new URL("../../gen/openapi/openapi.json", import.meta.url), "utf8");
const document = JSON.parse(documentText);
const serviceFiles: DescFile[] = [
  file_payments_v1_payment_service,
  file_payments_v1_subscription_service,
  file_payments_v1_sandbox_service,
  file_payments_v1_hosted_page_service,
  file_payments_v1_dashboard_service,
  file_payments_v1_customer_app_service,
];

/** Every method with a google.api.http rule, read from the generated descriptors (not from the plugin). */
function annotatedMethods() {
  return serviceFiles.flatMap((file) =>
    file.services.flatMap((service) =>
      service.methods
        .filter((m) => hasOption(m, http))
        .map((method) => {
          const pattern = getOption(method, http).pattern;
          if (pattern.case === undefined || pattern.case === "custom")
            throw new Error(`unexpected rule on ${method.name}`);
          return {
            operationId: `${service.name}_${method.name}`,
            verb: pattern.case,
            path: pattern.value,
            deprecated: method.deprecated,
          };
        }),
    ),
  );
}

describe("the OpenAPI document (gen/openapi/openapi.json)", () => {
  it("is a valid OpenAPI 3.1 document whose references all resolve", async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it("covers every google.api.http-annotated method, and nothing else", () => {
    const expected = annotatedMethods();
    expect(expected.length).toBeGreaterThan(30);
    for (const { operationId, verb, path, deprecated } of expected) {
      const operation = document.paths[path]?.[verb];
      expect(operation?.operationId, `${verb.toUpperCase()} ${path}`).toBe(operationId);
      expect(operation.deprecated ?? false).toBe(deprecated);
    }
    const documented = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId),
    );
    expect(documented.sort()).toEqual(expected.map((m) => m.operationId).sort());
  });

  it("describes path parameters, the Idempotency-Key header and the API key", () => {
    const getCharge = document.paths["/v1/charge/{charge}"].get;
    expect(getCharge.parameters).toEqual([expect.objectContaining({ name: "charge", in: "path", required: true })]);
    expect(getCharge.security).toEqual([{ apiKey: [] }]);
    const refund = document.paths["/v1/refund"].post;
    expect(refund.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key");
    // The hosted page's calls carry the link token, not an API key.
    expect(document.paths["/v1/hosted/{token}/initiate"].post.security).toEqual([]);
  });
});

describe("GET /openapi.json", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the generated document without an API key", async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(JSON.parse(documentText));
  });
});
