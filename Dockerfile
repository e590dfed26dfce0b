# Foghorn DNS server image. Build stage: full toolchain; runtime: distroless, non-root.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY packages ./packages
COPY test ./test
COPY bench ./bench
RUN npm ci --no-audit --no-fund && npm run build \
 && npm prune --omit=dev \
 && find packages -name '*.map' -delete -o -name '*.d.ts' -delete -o -name '*.tsbuildinfo' -delete \
 && rm -rf packages/*/src packages/*/test packages/*/dist/test packages/testkit

FROM gcr.io/distroless/nodejs22-debian12:nonroot
WORKDIR /foghorn
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/packages ./packages
COPY Corefile.example /etc/coredns/Corefile
# Port 53 without root: Kubernetes pods set net.ipv4.ip_unprivileged_port_start=53
# (see examples/kubernetes), or grant NET_BIND_SERVICE.
EXPOSE 53/udp 53/tcp 8080 8181 9153
USER nonroot
ENTRYPOINT ["/nodejs/bin/node", "/foghorn/packages/foghorn/dist/src/cli.js"]
CMD ["-conf", "/etc/coredns/Corefile"]
