# Small, non-root image: git for workspaces, the compiled app, production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# `npm run build` is tsc and then scripts/bundle.mjs.
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates bubblewrap \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The embedded job store (without REDIS_URL) and job checkouts live under /data: mount a volume there.
ENV NODE_ENV=production AIDER_BOT_DATA_DIR=/data/queue AIDER_BOT_WORK_DIR=/data/jobs
RUN mkdir -p /data && chown node:node /data
VOLUME /data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
USER node
EXPOSE 3000
CMD ["npm", "start"]
