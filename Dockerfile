# Foghorn DNS server image: a drop-in for the Lighthouse DNS pod (see examples/kubernetes).
# test/system/image.test.ts runs the runtime-tree and setcap RUN steps below outside Docker, read from this file.

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

# 3. The Node binary with the one capability the server needs, binding port 53 as a non-root
#    user in a pod that sets no sysctl and forbids privilege escalation (the capability is in
#    the container's set, NET_BIND_SERVICE), as CoreDNS's image does for its own binary.
FROM gcr.io/distroless/nodejs22-debian12:nonroot AS distroless
FROM debian:bookworm-slim AS node-capability
COPY --from=distroless /nodejs/bin/node /nodejs/bin/node
RUN apt-get update && apt-get install -y --no-install-recommends libcap2-bin
RUN setcap cap_net_bind_service=+ep /nodejs/bin/node

# 4. Distroless Node.js, non-root (uid 65532).
FROM distroless
WORKDIR /foghorn
COPY --from=node-capability /nodejs/bin/node /nodejs/bin/node
COPY --from=runtime-tree /foghorn ./
COPY examples/container/Corefile /etc/coredns/Corefile
EXPOSE 53/udp 53/tcp 8080 8181 9153
USER nonroot
# node flags first: those of packages/foghorn/src/v8-flags.ts (test/system/image.test.ts compares).
ENTRYPOINT ["/nodejs/bin/node", "--min-semi-space-size=4", "--max-semi-space-size=4", "--max-inlined-bytecode-size-cumulative=4000", "/foghorn/packages/foghorn/dist/src/cli.js"]
CMD ["-conf", "/etc/coredns/Corefile"]
