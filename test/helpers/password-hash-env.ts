/**
 * A sandbox's cheapest password hash (PASSWORD_HASH_SCRYPT_N, docs/reference/configuration.md), so that
 * signing in does not dominate the suite's time; production keeps its own cost.
 */
export function testPasswordHashEnv(env: Record<string, string | undefined>): Record<string, string> {
  return (env.MODE ?? "sandbox") === "sandbox" ? { PASSWORD_HASH_SCRYPT_N: "1024" } : {};
}
