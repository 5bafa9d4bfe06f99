import { loadConfig } from "./config.js";
import { startService } from "./composition-root.js";
import { describeProblems, preflight } from "./preflight.js";
import { createLogger } from "./server/logger.js";

const config = loadConfig();
if (config.mode === "production") {
  const problems = describeProblems(preflight(config));
  if (problems.length > 0) {
    createLogger(config.logLevel).fatal({ problems }, "MODE=production refuses to start");
    console.error(`MODE=production refuses to start:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    // EX_CONFIG: a process manager should not restart it (systemd: RestartPreventExitStatus=78).
    process.exit(78);
  }
}
const service = await startService(config);
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, "shutting down");
    service.close().then(
      () => {
        service.logger.info({ signal }, "stopped");
        process.exit(0);
      },
      (error) => {
        service.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
