import { readFileSync } from "node:fs";

/** The OpenAPI 3.1 document of the plain HTTP paths, as `buf generate` wrote it (tools/protoc-gen-openapi). */
export function loadOpenApiDocument(): string {
  return readFileSync(new URL("../../gen/openapi/openapi.json", import.meta.url), "utf8");
}
