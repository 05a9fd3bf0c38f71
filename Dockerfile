# termarena: a static binary on an empty base, running as uid 65532 with no
# capabilities. `docker build -t termarena .` builds it; see "Docker" in the
# README. No "# syntax=" line: nothing here needs more than the Dockerfile
# syntax every builder has, and a frontend image would be one more pull,
# which air-gapped or mirror-only hosts cannot make.
#
# .git is not in the build context, so the build is named by arguments:
#   docker build -t termarena \
#     --build-arg VERSION="$(git describe --tags --always --dirty)" \
#     --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
# They reach `termarena --version`, the startup log, `admin stats` and the
# image's OCI labels.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Declared here, not at the top of the stage: every RUN after an ARG sees
# it, so a new BUILD_DATE (each stamped build has one) would otherwise
# invalidate the cached module download as well.
ARG VERSION=dev
ARG REVISION=
ARG BUILD_DATE=
RUN CGO_ENABLED=0 go build -trimpath -o /out/termarena \
      -ldflags="-s -w \
        -X github.com/termarena/termarena/buildinfo.version=${VERSION} \
        -X github.com/termarena/termarena/buildinfo.revision=${REVISION} \
        -X github.com/termarena/termarena/buildinfo.date=${BUILD_DATE}" . \
 && /out/termarena --version \
 && mkdir -p /out/root/data /out/root/run/termarena \
 && chown 65532:65532 /out/root/data /out/root/run/termarena \
 && chmod 0700 /out/root/data /out/root/run/termarena

FROM scratch
ARG VERSION=dev
ARG REVISION=
ARG BUILD_DATE=
LABEL org.opencontainers.image.title="termarena" \
      org.opencontainers.image.description="Multiplayer terminal games over SSH" \
      org.opencontainers.image.source="https://github.com/termarena/termarena" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${BUILD_DATE}"
COPY --from=build /out/termarena /termarena
# The tree, not the directories: COPY copies a directory's contents, and
# the directory it creates for them gets mode 0755 and root's ownership.
# /data (0700, uid 65532) is where the host key and database are created at
# first start, never baked into the image; a new volume mounted there takes
# its owner and mode. /run/termarena holds the address the server listens
# on, for the healthcheck.
COPY --from=build /out/root/ /
USER 65532:65532
ENV TERMARENA_DATA=/data TERMARENA_LISTEN=:2222 TERMARENA_ADDR_FILE=/run/termarena/addr
VOLUME ["/data"]
EXPOSE 2222 8080
# Dials the address the server recorded (flags after the image name
# included) and expects termarena's SSH identification line.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/termarena", "healthcheck"]
ENTRYPOINT ["/termarena"]
