/** What the file-sized benches report of each phase (bench/zengin-files.ts, bench/subscription-cycle.ts). */

/** Wall and CPU (user + system) seconds of one phase. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; cpuSeconds: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return {
    result,
    seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
    cpuSeconds: Number(((used.user + used.system) / 1e6).toFixed(2)),
  };
}

/** The process's peak resident size so far. */
export function peakRssMiB(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
