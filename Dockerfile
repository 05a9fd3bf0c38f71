# syntax=docker/dockerfile:1
# Multi-stage: a static binary on an empty base, run as a non-root user.
# The build command is the one the README documents and CI exercises.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/termarena . \
 && mkdir -p /out/data && chown 65532:65532 /out/data && chmod 0700 /out/data

FROM scratch
COPY --from=build /out/termarena /termarena
# The host key and database are created here at first start, never baked
# into the image: mount a volume so they survive upgrades.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV TERMARENA_DATA=/data TERMARENA_LISTEN=:2222
VOLUME ["/data"]
EXPOSE 2222
# Dials the SSH port and expects termarena's identification line.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/termarena", "healthcheck"]
ENTRYPOINT ["/termarena"]
