# krm-merge image: the static binary alone (FROM scratch), run as nonroot (uid 65532).
# kpt and kustomize run functions with `--user nobody` (65534): /etc/passwd and /etc/group
# name both users. The function reads stdin and writes stdout only: no shell, certificates,
# time zones or temporary directory are needed.
# Build: make image   (docker or podman; see hack/image.sh for the offline podman form)
# Keep to what buildah 1.28 understands: no heredocs, no COPY --link.
FROM golang:1.26 AS builder
# VERSION is stamped into `krm-merge --version`; make image passes `git describe`.
ARG VERSION=dev
WORKDIR /src
ENV CGO_ENABLED=0 GOOS=linux GOTOOLCHAIN=local
COPY go.mod go.sum ./
RUN go mod download
COPY *.go ./
COPY pkg/ ./pkg/
COPY internal/ ./internal/
COPY cmd/ ./cmd/
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/krm-merge . && \
    mkdir -p /out/etc && \
    printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/:/sbin/nologin\n' > /out/etc/passwd && \
    printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' > /out/etc/group

FROM scratch
LABEL org.opencontainers.image.source="https://github.com/krm-merge/krm-merge" \
      org.opencontainers.image.description="krm-merge: 3-way, 2-way and kubectl-apply merges as a KRM function" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=builder /out/etc/ /etc/
COPY --from=builder /out/krm-merge /usr/local/bin/krm-merge
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/krm-merge"]
