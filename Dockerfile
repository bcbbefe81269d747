# Small, non-root image: git for workspaces, the compiled app, production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.testkit.json ./
COPY src ./src
# The demo command (`aider-bot demo`) imports the testkit: its fake GitHub and scripted model.
COPY testkit ./testkit
# `npm run build` is tsc and then scripts/bundle.mjs.
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# Repository commands run in containers (AIDER_BOT_SANDBOX=auto/container, README "Sandbox modes and toolchains"):
# rootless Podman inside this container (the default), or the host's Docker daemon through its socket with the
# Docker CLI copied below (AIDER_BOT_CONTAINER_ENGINE=docker). bubblewrap stays for AIDER_BOT_SANDBOX=bubblewrap.
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates bubblewrap socat \
     podman runc fuse-overlayfs uidmap slirp4netns \
  && rm -rf /var/lib/apt/lists/* \
  # Rootless Podman for the `node` user: its own range of sub-ids, no systemd (cgroupfs), images on fuse-overlayfs.
  && echo "node:100000:65536" >> /etc/subuid && echo "node:100000:65536" >> /etc/subgid \
  && mkdir -p /home/node/.config/containers /home/node/.local/share/containers \
  && printf '[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\nruntime = "runc"\n' > /home/node/.config/containers/containers.conf \
  && printf '[storage]\ndriver = "overlay"\n[storage.options.overlay]\nmount_program = "/usr/bin/fuse-overlayfs"\n' > /home/node/.config/containers/storage.conf \
  && chown -R node:node /home/node/.config /home/node/.local
COPY --from=docker.io/library/docker:27-cli /usr/local/bin/docker /usr/local/bin/docker
WORKDIR /app
# The embedded job store (without REDIS_URL) and job checkouts live under /data: mount a volume there.
ENV NODE_ENV=production AIDER_BOT_DATA_DIR=/data/queue AIDER_BOT_WORK_DIR=/data/jobs \
  AIDER_BOT_SANDBOX=auto AIDER_BOT_CONTAINER_ENGINE=podman
RUN mkdir -p /data && chown node:node /data
# Pulled images (rootless Podman's store): keep them on a volume so each image is pulled once per worker.
VOLUME /data /home/node/.local/share/containers
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json app.yml ./
USER node
EXPOSE 3000
CMD ["npm", "start"]
