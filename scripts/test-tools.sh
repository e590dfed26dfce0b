#!/usr/bin/env bash
# The programs the tests run besides Node (clients we did not write, the image's setcap step),
# installed from Debian's packages when missing. Runs before `npm test` and `npm run test:system`.
set -euo pipefail

# command → Debian package
declare -A tools=(
  [kdig]=knot-dnsutils       # DoT, DoH and AXFR clients in the end-to-end tests
  [dig]=bind9-dnsutils       # BIND's client: AXFR in the file plugin's tests
  [delv]=bind9-dnsutils      # BIND's validating resolver: judges dnssec's signatures
  [drill]=ldnsutils          # ldns' client: drill -S chases dnssec's signatures, a second validator
  [ldns-keygen]=ldnsutils    # writes DNSSEC key pairs in BIND's format for the dnssec tests
  [setcap]=libcap2-bin       # the image's node-capability step
  [getcap]=libcap2-bin
  [openssl]=openssl          # test certificates
  [git]=git                  # the fresh-clone test
  [knotd]=knot               # the UDP burst's reference (reliability/burst.ts); the primary of secondary's tests
  [knotc]=knot               # reloads that primary's zones (testkit's startKnot)
  [promtool]=prometheus      # checks and unit-tests the alerting rules of examples/monitoring
  [fstrm_capture]=fstrm-bin  # the dnstap collector of plugin-dnstap's tests
  [dnstap-ldns]=dnstap-ldns  # decodes what the collector wrote
  [socat]=socat              # relays a collector to dnstap's listen mode
  [go]=golang-go             # `go tool pprof` reads what plugin-pprof serves
  [etcd]=etcd-server          # the etcd plugin's backend (packages/plugin-etcd)
)

missing=()
for command in "${!tools[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${tools[$command]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "the tests need these Debian packages: $packages(install them, or run npm test as root on Debian)" >&2
  exit 1
fi
echo "installing test tools: $packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $packages >/dev/null
