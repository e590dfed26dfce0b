/** Zone texts from CoreDNS's plugin/file tests (lookup_test.go, delegation_test.go, additional cases). */
export const dbMiekNL = `
$TTL    30M
$ORIGIN miek.nl.
@       IN      SOA     linode.atoom.net. miek.miek.nl. (
                             1282630057 ; Serial
                             4H         ; Refresh
                             1H         ; Retry
                             7D         ; Expire
                             4H )       ; Negative Cache TTL
                IN      NS      linode.atoom.net.
                IN      NS      ns-ext.nlnetlabs.nl.
                IN      NS      omval.tednet.nl.
                IN      NS      ext.ns.whyscream.net.

                IN      MX      1  aspmx.l.google.com.
                IN      MX      5  alt1.aspmx.l.google.com.
                IN      MX      5  alt2.aspmx.l.google.com.
                IN      MX      10 aspmx2.googlemail.com.
                IN      MX      10 aspmx3.googlemail.com.

\t\tIN      A       139.162.196.78
\t\tIN      AAAA    2a01:7e00::f03c:91ff:fef1:6735

a               IN      A       139.162.196.78
                IN      AAAA    2a01:7e00::f03c:91ff:fef1:6735
www             IN      CNAME   a
archive         IN      CNAME   a
*.x             IN      CNAME   www
b.x             IN      CNAME   a
*.y             IN      A       139.162.196.78
dname           IN      DNAME   x

srv\t\tIN\tSRV     10 10 8080 a.miek.nl.
mx\t\tIN\tMX      10 a.miek.nl.

txt     IN\tTXT     "v=spf1 a mx ~all"
caa     IN  CAA    0 issue letsencrypt.org
*.nodata    IN   A      139.162.196.79
ext-cname   IN   CNAME  example.com.
`;

export const dbMiekNLDelegation = `
$TTL    30M
$ORIGIN miek.nl.
@       IN      SOA     linode.atoom.net. miek.miek.nl. (
                             1282630057 ; Serial
                             4H         ; Refresh
                             1H         ; Retry
                             7D         ; Expire
                             4H )       ; Negative Cache TTL
                IN      NS      linode.atoom.net.
                IN      NS      ns-ext.nlnetlabs.nl.
                IN      NS      omval.tednet.nl.
                IN      NS      ext.ns.whyscream.net.

                IN      MX      1  aspmx.l.google.com.
                IN      MX      5  alt1.aspmx.l.google.com.

delegated\tIN\tNS      a.delegated
\t\tIN\tNS      ns-ext.nlnetlabs.nl.

a.delegated     IN      TXT     "obscured"
                IN      A       139.162.196.78
                IN      AAAA    2a01:7e00::f03c:91ff:fef1:6735

a               IN      A       139.162.196.78
                IN      AAAA    2a01:7e00::f03c:91ff:fef1:6735
www             IN      CNAME   a
archive         IN      CNAME   a

; a signed delegation: its DS is the parent's to answer (RFC 4035 §3.1.4.1)
secure          IN      NS      ns.secure.example.net.
                IN      DS      60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118
`;

export const dbAdditional = `
$TTL 30M
$ORIGIN example.org.
@\tIN SOA\tns.example.org. admin.example.org. (
\t\t\t2024010100 ; serial
\t\t\t14400      ; refresh (4 hours)
\t\t\t3600       ; retry (1 hour)
\t\t\t604800     ; expire (1 week)
\t\t\t14400      ; minimum (4 hours)
\t\t\t)
\tIN NS\tns.example.org.
ns\t\tIN A\t192.0.2.1
host\t\tIN A\t192.0.2.10
\t\tIN AAAA\t2001:db8::10
other\t\tIN A\t192.0.2.20
\t\tIN AAAA\t2001:db8::20
mx\t\tIN MX\t10 host.example.org.
\t\tIN MX\t20 host.example.org.
srv\t\tIN SRV\t10 50 8080 host.example.org.
\t\tIN SRV\t20 50 8080 host.example.org.
two\t\tIN MX\t10 host.example.org.
\t\tIN MX\t20 other.example.org.
cname-srv\tIN CNAME\tsrv.example.org.
*.wild\t\tIN CNAME\tsrv.example.org.
dname\t\tIN DNAME\tdsub.example.org.
srv.dsub\tIN SRV\t10 50 8080 host.example.org.
; an empty non-terminal (ent) above a name, and a wildcard below one (RFC 4592 §2.2.2)
a.b.ent\t\tIN A\t192.0.2.30
*.w\t\tIN TXT\t"wild"
x.y.w\t\tIN TXT\t"below"
`;

/** wildcard_test.go's zones. */
export const exampleOrg = `; example.org test file
$TTL 3600
example.org.\t\tIN\tSOA\tsns.dns.icann.org. noc.dns.icann.org. 2015082541 7200 3600 1209600 3600
example.org.\t\tIN\tNS\tb.iana-servers.net.
example.org.\t\tIN\tNS\ta.iana-servers.net.
example.org.\t\tIN\tA\t127.0.0.1
example.org.\t\tIN\tA\t127.0.0.2
*.w.example.org.        IN      TXT     "Wildcard"
a.b.c.w.example.org.    IN      TXT     "Not a wildcard"
*.c.example.org.        IN      TXT     "c Wildcard"
*.d.example.org.        IN      CNAME   alias.example.org.
alias.example.org.      IN      TXT     "Wildcard CNAME expansion"
`;

export const doubleWildcard = `; example.org test file with wildcard at apex
$TTL 3600
example.org.\t\tIN\tSOA\tsns.dns.icann.org. noc.dns.icann.org. 2015082541 7200 3600 1209600 3600
example.org.\t\tIN\tNS\tb.iana-servers.net.
*.example.org.          IN      A       127.0.0.53
*.intern.example.org.   IN      A       127.0.1.52
foo.example.org.        IN      A       127.0.0.54
real.deeper.example.org. IN     A       127.0.0.54
`;

export const emptyNonTerminalWildcard = `; example.org test file with an empty non-terminal wildcard
$TTL 3600
example.org.             IN     SOA     ns.example.org. hostmaster.example.org. 1 7200 3600 1209600 3600
example.org.             IN     NS      ns.example.org.
f.*.e.example.org.       IN     A       192.0.2.1
t.e.example.org.         IN     A       192.0.2.2
real.deep.e.example.org. IN     A       192.0.2.3
*.ordinary.example.org.  IN     A       192.0.2.4
`;

/** A signed zone with stand-in signatures: what is served is checked, not the cryptography. */
export const dbSigned = `$ORIGIN example.org.
$TTL 1800
@         SOA    a.iana-servers.net. devnull.example.org. 1282630057 14400 3600 604800 14400
          RRSIG  SOA 13 2 1800 20161129153240 20161030153240 49035 example.org. c29h
          NS     a.iana-servers.net.
          NS     b.iana-servers.net.
          RRSIG  NS 13 2 1800 20161129153240 20161030153240 49035 example.org. bnM=
          14400 NSEC a.example.org. NS SOA RRSIG NSEC DNSKEY
          14400 RRSIG NSEC 13 2 14400 20161129153240 20161030153240 49035 example.org. YXBleA==
          DNSKEY 257 3 13 YWJj
a         A      192.0.2.1
          RRSIG  A 13 3 1800 20161129153240 20161030153240 49035 example.org. YQ==
          14400 NSEC delegated.example.org. A RRSIG NSEC
          14400 RRSIG NSEC 13 3 14400 20161129153240 20161030153240 49035 example.org. YW4=
delegated NS     ns.delegated.example.org.
          DS     10056 5 1 EE72CABD1927759CDDA92A10DBF431504B9E1F13
          RRSIG  DS 13 3 1800 20161129153240 20161030153240 49035 example.org. ZHM=
          14400 NSEC *.w.example.org. NS DS RRSIG NSEC
          14400 RRSIG NSEC 13 3 14400 20161129153240 20161030153240 49035 example.org. ZG4=
ns.delegated A   192.0.2.53
*.w       TXT    "wild"
          RRSIG  TXT 13 3 1800 20161129153240 20161030153240 49035 example.org. dw==
          14400 NSEC www.example.org. TXT RRSIG NSEC
          14400 RRSIG NSEC 13 3 14400 20161129153240 20161030153240 49035 example.org. d24=
www       A      192.0.2.80
          RRSIG  A 13 3 1800 20161129153240 20161030153240 49035 example.org. d3d3
          14400 NSEC example.org. A RRSIG NSEC
          14400 RRSIG NSEC 13 3 14400 20161129153240 20161030153240 49035 example.org. d24=
`;
