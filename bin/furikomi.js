#!/usr/bin/env node
// The furikomi command-line tool: runs the TypeScript sources through tsx, no build step.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
