import { isIPv4, isIPv6 } from "node:net";

/**
 * The sign-in rate limits' bucket of a client address (docs/reference/security.md#dashboard-sign-in):
 * what one machine can switch between freely counts as one. All of 127.0.0.0/8 and ::1 are the
 * loopback of one host (a client there picks any source address it likes); an IPv6 address is
 * counted by its /64, the smallest network an ISP hands a customer; an IPv4-mapped IPv6 address
 * is its IPv4 address. Anything else is the address itself.
 */
export function clientAddressBucket(address: string): string {
  const plain = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
  if (isIPv4(plain)) return plain.startsWith("127.") ? "loopback" : plain;
  if (plain === "::1") return "loopback";
  if (isIPv6(plain)) return `${expandIpv6(plain).slice(0, 4).join(":")}::/64`;
  return plain;
}

/** The eight hextets of an IPv6 address (a zone index dropped). */
function expandIpv6(address: string): string[] {
  const [head, tail = ""] = address.split("%")[0].split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") && tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  return [...left, ...Array(Math.max(0, missing)).fill("0"), ...right].map((h) => h.replace(/^0+(?=.)/, ""));
}
