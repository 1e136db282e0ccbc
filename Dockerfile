# n8n-ceiling exporter (and broker probe): a static binary on a distroless,
# non-root base. Build from the repo root: docker build -t n8n-ceiling/exporter .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: a static binary that needs no libc in the final image.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/exporter ./cmd/exporter

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/exporter /exporter
# 65532 = nonroot. Reading the Docker socket needs its group: compose adds
# it with group_add (DOCKER_GID).
USER 65532:65532
EXPOSE 9810 5690
ENTRYPOINT ["/exporter"]
