# syntax=docker/dockerfile:1
# Multi-stage: build the single executable on the current Node LTS, then run that one file on a
# slim Debian (the executable is node itself: it needs glibc and libstdc++, nothing else).
# The base images are arguments so a machine without access to Docker Hub can name images it made
# itself (test/ship/container.test.ts builds this file from debootstrap-made bases).
ARG NODE_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# no compiler: every native part ships prebuilt in its npm package; strip shrinks the executable
RUN apt-get update && apt-get install -y --no-install-recommends binutils && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build:sea

FROM ${RUNTIME_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libstdc++6 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 app && useradd --system --uid 10001 --gid app --home-dir /home/app --create-home app \
 && mkdir -p /data && chown app:app /data && chmod 0700 /data
COPY --from=build /app/dist/chat-agent /usr/local/bin/chat-agent
# The executable unpacks its native parts to ~/.cache/chat-agent on first start (an exec-allowed, private dir).
# MALLOC_ARENA_MAX: the C allocator's arenas, as `npm start` sets it (docs/DEPLOY.md "Memory").
ENV PORT=3000 HOST=0.0.0.0 DATA_DIR=/data HOME=/home/app MALLOC_ARENA_MAX=2
USER app
WORKDIR /home/app
VOLUME ["/data"]
EXPOSE 3000
# no curl in the image: the executable itself asks /api/health
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["chat-agent", "healthcheck"]
# SIGTERM (docker stop) shuts down gracefully; give it more than the server's 10 s grace: docker stop -t 15
STOPSIGNAL SIGTERM
ENTRYPOINT ["chat-agent"]
CMD ["serve"]
