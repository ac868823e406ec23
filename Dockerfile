# syntax=docker/dockerfile:1
#
# objstore-exporter image: bundled with esbuild, run with production dependencies only, as a non-root
# user, under tini (so SIGTERM reaches node and zombies are reaped).
#
#   docker build -t objstore-exporter:0.1.0 .
#   docker run -p 9786:9786 -v /mnt/disk1:/mnt/disk1:ro -e DRIVES=/mnt/disk1 objstore-exporter:0.1.0
#   docker run --rm -e BUCKETS_SOURCE=s3 ... objstore-exporter:0.1.0 check-config
#
# The tag is package.json's version; docker-compose.yml and config/kubernetes use the same one.
#
# The root filesystem may be read-only: the process writes only below DATA_DIR (/data, and
# STATE_FILE if set there).

# The Active LTS (docs/configuration-notes.md, "Node versions").
ARG NODE_IMAGE=node:26-slim

# --- build: bundle src/ into dist/ (scripts/build.mjs, esbuild) ---------------------------------
FROM ${NODE_IMAGE} AS build
# A C compiler for the native fs walk (native/fswalk.c, compiled against the image's own Node
# headers by scripts/build-native.mjs): in this stage only, the runtime has none.
RUN apt-get update \
  && apt-get install -y --no-install-recommends gcc libc6-dev \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/build-native.mjs ./scripts/
COPY native ./native
COPY src ./src
# dist/fswalk.node must be there: the image walks natively (the JavaScript walk is a fallback).
RUN npm run build && test -f dist/fswalk.node

# --- deps: production dependencies only ----------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime --------------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# package.json is read at start for the version shown in exporter_build_info.
COPY package.json LICENSE ./
COPY --from=deps /app/node_modules ./node_modules
# dist/ holds the native fs walk (fswalk.node) beside the bundle.
COPY --from=build /app/dist ./dist
# /state: a mount point for STATE_FILE; owned by the runtime user so a fresh volume is writable.
RUN mkdir /data /state && chown 1000:1000 /data /state
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=9786 \
    DATA_DIR=/data
# The image's `node` user, by number so Kubernetes can check runAsNonRoot without reading /etc/passwd.
USER 1000:1000
EXPOSE 9786
# GET /healthz on the own port (HTTPS when TLS_CERT_FILE is set); see src/healthcheck.ts. Under
# mutual TLS (TLS_CLIENT_CA_FILE) it has no client certificate and fails: run with
# --no-healthcheck there (docs/deploy.md, "Mutual TLS and health checks").
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["node", "dist/healthcheck.js"]
# The command line is the entry point, so `docker run IMAGE check-config` or
# `docker run IMAGE scan --once --format json` run a subcommand; no arguments serve.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/main.js"]
CMD ["serve"]
