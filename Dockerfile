# One image for every botwire component; the first argument names what runs:
#   docker run <image> api | channel | language | flow | retriver | indexer
#   docker run <image> migrate          (knex migrate:latest on DATABASE_URL, then exits)
#   docker run <image> healthcheck      (what HEALTHCHECK runs; --live for liveness only)
# Built from the lock file (npm ci), in two stages: the build stage has the dev dependencies,
# compiles the components to JavaScript (npm run build: dist/) and builds the console; the runtime
# stage has only the production dependencies and those builds (no TypeScript loader: it runs
# compiled) and runs as an unprivileged user.
# See docs/deployment.md.

# The base: Node 20 on Debian 12, pinned by major version and release; pin a digest in your own
# registry for repeatable rebuilds. ./scripts/image.sh passes a local one (debootstrap) where the
# registry cannot be reached.
ARG BASE_IMAGE=node:20-bookworm-slim

FROM ${BASE_IMAGE} AS build
# A CA bundle npm trusts besides Node's (a registry behind a TLS-inspecting proxy): a path the
# builder mounts (./scripts/image.sh passes this machine's); nothing of it stays in the image.
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY console ./console
COPY src ./src
COPY migrations ./migrations
COPY knexfile.ts tsconfig.json tsconfig.build.json ./
COPY scripts/lib/build.sh scripts/lib/stream-layout.ts scripts/lib/migrate.ts scripts/lib/language-model.mjs ./scripts/lib/
RUN npm run build && npm run console:build

FROM ${BASE_IMAGE} AS runtime
ARG NODE_EXTRA_CA_CERTS
ENV NODE_ENV=production \
    HEALTH_FILE=/tmp/botwire.health \
    STORAGE_DIR=/var/lib/botwire/storage \
    API_PORT=8000
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY schemas ./schemas
COPY widget ./widget
COPY scripts/healthcheck.mjs scripts/healthcheck.sh scripts/container-entrypoint.sh scripts/node-options.sh ./scripts/
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
# Uploaded documents (STORAGE_DIR): a volume shared by api and indexer.
RUN mkdir -p /var/lib/botwire/storage && chown 1000:1000 /var/lib/botwire/storage
# The image's `node` user, by number so Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8000
VOLUME ["/var/lib/botwire/storage"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["sh", "scripts/healthcheck.sh"]
ENTRYPOINT ["/bin/sh", "scripts/container-entrypoint.sh"]
CMD ["api"]
