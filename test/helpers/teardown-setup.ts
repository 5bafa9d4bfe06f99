import { afterAll } from "vitest";
import { runTeardowns } from "./teardown.js";

// A setup file of every project (vitest.config.ts): registered first, this afterAll runs after
// the test file's own hooks (vitest runs after-hooks in reverse), and releases whatever a test
// that timed out or threw left running (test/helpers/teardown.ts).
afterAll(async () => {
  const released = await runTeardowns();
  if (released > 0 && process.env.TEST_LOG_LEVEL) console.warn(`teardown: released ${released} left behind`);
});
