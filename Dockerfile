# syntax=docker/dockerfile:1
# Multi-stage: build the single executable with the full toolchain, then run that one file on a
# slim Debian (the executable is node itself: it needs glibc and libstdc++, nothing else).
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source (no prebuilt binary is reachable); strip shrinks the executable
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ binutils && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build:sea

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libstdc++6 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 app && useradd --system --uid 10001 --gid app --home-dir /home/app --create-home app \
 && mkdir -p /data && chown app:app /data
COPY --from=build /app/dist/chat-agent /usr/local/bin/chat-agent
# The executable unpacks its native parts to ~/.cache/chat-agent on first start (an exec-allowed, private dir).
ENV PORT=3000 HOST=0.0.0.0 DATA_DIR=/data HOME=/home/app
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
