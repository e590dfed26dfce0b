# Foghorn DNS server image: a drop-in for the Lighthouse DNS pod (see examples/kubernetes).
# test/image.test.ts runs the runtime-tree RUN step below outside Docker, read from this file.

# 1. Build everything with the full toolchain.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

# 2. The runtime tree: manifests, compiled code, production dependencies; no maps, no types.
FROM node:22-bookworm-slim AS runtime-tree
WORKDIR /foghorn
COPY --from=build /src/package.json /src/package-lock.json ./
COPY --from=build /src/packages ./packages
RUN rm -rf packages/*/src packages/*/test packages/*/bench packages/*/dist/test packages/*/dist/bench packages/*/tsconfig.json \
 && find packages -name '*.map' -delete -o -name '*.d.ts' -delete -o -name '*.tsbuildinfo' -delete \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# 3. Distroless Node.js, non-root (uid 65532). Port 53 without root: the pod sets
#    net.ipv4.ip_unprivileged_port_start=53 (examples/kubernetes/lighthouse-dns.yaml).
FROM gcr.io/distroless/nodejs22-debian12:nonroot
WORKDIR /foghorn
COPY --from=runtime-tree /foghorn ./
COPY Corefile.example /etc/coredns/Corefile
EXPOSE 53/udp 53/tcp 8080 8181 9153
USER nonroot
ENTRYPOINT ["/nodejs/bin/node", "/foghorn/packages/foghorn/dist/src/cli.js"]
CMD ["-conf", "/etc/coredns/Corefile"]
