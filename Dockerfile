# syntax=docker/dockerfile:1
# toolgate container image.
#   docker build -t toolgate .
#   docker run --rm -p 8080:8080 -e OPENAI_API_KEY toolgate
# It listens on 0.0.0.0 (HOST): without gateway keys (auth.keys in the config) it refuses to start,
# unless anonymous access is allowed explicitly: -e TOOLGATE_ALLOW_ANONYMOUS=true (anyone who
# reaches the port then spends your provider keys; publish it on 127.0.0.1 only: -p 127.0.0.1:8080:8080).
# Config: /app/config/gateway.yaml (the shipped config/ is copied in). Replace it by mounting a
# directory over /app/config, or point TOOLGATE_CONFIG at another mounted file.

# Node 24 "Krypton": LTS since Oct 2025, security support until April 2028 (Node 22 ends April 2027).
ARG NODE_IMAGE=node:24-slim

# ---- build: dev dependencies + TypeScript → dist/ -------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies only, non-root ----------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    HOST=0.0.0.0 \
    TOOLGATE_CONFIG=/app/config/gateway.yaml
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY config ./config
# Files stay owned by root (read-only for the app); the process runs as the image's `node` user.
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The `start` script of package.json, run directly so node is PID 1 and gets SIGTERM
# (toolgate drains in-flight requests for server.shutdownGraceMs, then exits).
# --max-semi-space-size=16: Node 24 lets V8's young generation grow to 2 x 64 MB under load (Node 20
# stops at 2 x 16 MB); 1,000 concurrent streams then peak ~70 MB higher and each scavenge pauses about
# twice as long. 16 is Node 20's default (docs/performance.md).
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
