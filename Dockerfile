# n8n-ceiling exporter (and broker probe): a static binary on a distroless,
# non-root base. Build from the repo root: docker build -t n8n-ceiling/exporter .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: a static binary that needs no libc in the final image.
# VERSION, REVISION, BRANCH and BUILD_DATE label n8n_exporter_build_info
# (--build-arg); empty, the module's own build data is used.
ARG VERSION
ARG REVISION
ARG BRANCH
ARG BUILD_DATE
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X github.com/prometheus/common/version.Version=${VERSION} -X github.com/prometheus/common/version.Revision=${REVISION} -X github.com/prometheus/common/version.Branch=${BRANCH} -X github.com/prometheus/common/version.BuildDate=${BUILD_DATE}" -o /out/exporter ./cmd/exporter

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/exporter /exporter
# 65532 = nonroot. The exporter needs no file of its own: it runs with a
# read-only root filesystem and no capabilities, and reaches Docker over
# TCP through a socket proxy (compose/), never through the socket.
USER 65532:65532
EXPOSE 9810 5690
ENTRYPOINT ["/exporter"]
