import openApi from "../../gen/openapi/openapi.json" with { type: "json" };

/**
 * The OpenAPI 3.1 document of the plain HTTP paths, as `buf generate` wrote it
 * (tools/protoc-gen-openapi); imported, so a bundled server carries it too.
 */
export function loadOpenApiDocument(): string {
  return JSON.stringify(openApi);
}
