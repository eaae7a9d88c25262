# krm-merge image: a static binary on distroless, run as nonroot (uid 65532).
# Build: make image  (or: docker build --build-arg VERSION=$(git describe --tags --always) -t ghcr.io/krm-merge/krm-merge .)
FROM golang:1.26 AS builder
ARG VERSION=dev
WORKDIR /src
ENV CGO_ENABLED=0 GOTOOLCHAIN=local
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/krm-merge .

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/krm-merge /usr/local/bin/krm-merge
USER 65532
ENTRYPOINT ["/usr/local/bin/krm-merge"]
