#!/usr/bin/env node
// The furikomi command-line tool: runs the compiled CLI (dist/cli.js), rebuilt first when a source is newer.
import { build } from "../scripts/build.mjs";

await build({ names: ["server"], ifStale: true });
await import("../dist/cli.js");
