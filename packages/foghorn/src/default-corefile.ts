/**
 * The Corefile the `foghorn` command serves when it finds none, or finds one without a server
 * block: CoreDNS's built-in default (`.:53 { whoami }`, core/dnsserver/register.go), plus `log`
 * when the distribution has it, so a first run shows each query.
 */
import type { DirectiveEntry } from '@foghorn/core/server';

export function defaultCorefile(dnsPort: number, directives: readonly DirectiveEntry[]): string {
  const log = directives.some((d) => d.name === 'log') ? '\n    log' : '';
  return `.:${dnsPort} {\n    whoami${log}\n}\n`;
}
