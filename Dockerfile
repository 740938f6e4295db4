# syntax=docker/dockerfile:1
# modal-host: built with the official Swift image on Debian bookworm, run on
# debian:bookworm-slim with only the runtime libraries, as a non-root user.

FROM swift:6.2-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libwebsockets-dev libwebsockets-evlib-ev libev-dev libssl-dev libqrencode-dev libhiredis-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY scripts/release-flags ./scripts/
# Word splitting of the release flags is wanted.
# hadolint ignore=SC2046
RUN swift build -c release $(scripts/release-flags) --static-swift-stdlib --product modal-host \
    && swift build -c release $(scripts/release-flags) --static-swift-stdlib --product kiosk \
    && mkdir -p /out \
    && cp "$(swift build -c release --show-bin-path)/modal-host" "$(swift build -c release --show-bin-path)/kiosk" /out/

FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libwebsockets17 libwebsockets-evlib-ev libev4 libssl3 libqrencode4 libhiredis0.14 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /srv modal
COPY --from=build /out/modal-host /out/kiosk /usr/local/bin/
COPY web /srv/web
USER 10001
WORKDIR /srv
ENV MODAL_HOST_HOST=0.0.0.0 \
    MODAL_HOST_PORT=8080 \
    MODAL_HOST_WEB_ROOT=/srv/web
# Open files: a Dockerfile cannot set ulimits. modal-host raises its soft RLIMIT_NOFILE to
# the hard limit the runtime grants and keeps its connection table below it; give it room
# with `docker run --ulimit nofile=65536:65536` (docker-compose.yml sets the same).
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["curl", "-fsS", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/modal-host"]
