# n8n-ceiling exporter (and broker probe): a static binary on a distroless,
# non-root base. Build from the repo root: docker build -t n8n-ceiling/exporter .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: a static binary that needs no libc in the final image.
# VERSION and REVISION label n8n_exporter_build_info (--build-arg); empty,
# the module's own build data is used.
ARG VERSION
ARG REVISION
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" -o /out/exporter ./cmd/exporter

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/exporter /exporter
# 65532 = nonroot. The exporter needs no file of its own: it runs with a
# read-only root filesystem and no capabilities, and reaches Docker over
# TCP through a socket proxy (compose/), never through the socket.
USER 65532:65532
EXPOSE 9810 5690
ENTRYPOINT ["/exporter"]
