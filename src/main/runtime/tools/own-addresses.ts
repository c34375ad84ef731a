// This machine's own interface addresses. A server or a VM with a public (or documentation-range) address
// reaches its own 0.0.0.0-bound services through that address as well as through loopback, so web_fetch
// treats them as this machine whatever their class. Read per check: interfaces come and go (VPN, Wi-Fi).
import net from 'node:net'
import os from 'node:os'

type Interfaces = ReturnType<typeof os.networkInterfaces>

/** One spelling per address: IPv4 dotted, IPv6 expanded by Node's URL parser (scope id dropped). */
function canonical(ip: string): string {
  const bare = ip.replace(/%.*$/, '')
  if (net.isIPv4(bare)) return bare
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1)
  } catch {
    return bare.toLowerCase()
  }
}

/** True when `ip` is assigned to one of this machine's network interfaces. */
export function isOwnAddress(ip: string, interfaces: () => Interfaces = os.networkInterfaces): boolean {
  const want = canonical(ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip)
  for (const list of Object.values(interfaces())) {
    for (const a of list ?? []) if (canonical(a.address) === want) return true
  }
  return false
}
