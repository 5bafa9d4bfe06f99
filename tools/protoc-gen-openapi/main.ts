// protoc-gen-openapi: writes openapi/openapi.json, the OpenAPI 3.1 document of the plain HTTP
// paths (google.api.http), from the files buf asks it to generate. Run by buf.gen.yaml.
import { createEcmaScriptPlugin, runNodeJs } from "@bufbuild/protoplugin";
import { httpBindingOf, openApiDocument } from "./openapi-document.js";

const plugin = createEcmaScriptPlugin({
  name: "protoc-gen-openapi",
  version: "v1",
  generateTs(schema) {
    // buf runs the plugin once per input: only the one holding the annotated services writes the file.
    const annotated = schema.files.some((f) => f.services.some((s) => s.methods.some((m) => httpBindingOf(m))));
    if (annotated)
      schema.generateFile("openapi/openapi.json").print(JSON.stringify(openApiDocument(schema.files), null, 2));
  },
});

runNodeJs(plugin);
