# krm-merge: build, test, demo. `make help` lists the targets.
SHELL := /bin/bash
BIN := $(CURDIR)/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
KUSTOMIZE_VERSION := v5.7.1
IMAGE ?= ghcr.io/krm-merge/krm-merge:$(VERSION)

export GOTOOLCHAIN := local

.PHONY: help build install test unit e2e vet demo tools image image-test bench bench-fleet bench-smoke fuzz fuzz-smoke clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s $$'\t'

build: ## build ./bin/krm-merge
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN)/krm-merge .

install: ## install krm-merge into GOBIN, else GOPATH/bin (~/go/bin): put that on PATH
	CGO_ENABLED=0 go install -trimpath -ldflags "-s -w -X main.version=$(VERSION)" .
	@echo "installed $$(d=$$(go env GOBIN); echo $${d:-$$(go env GOPATH)/bin})/krm-merge"

tools: $(BIN)/kustomize ## install the tools the tests need into ./bin (kustomize v5.7.1)

$(BIN)/kustomize:
	GOBIN=$(BIN) go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION)

vet: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...

unit: ## unit, rule and differential tests (no external tools)
	go test -count=1 $$(go list ./... | grep -v /e2e)

e2e: build tools ## end-to-end tests through the real kpt and kustomize
	PATH="$(BIN):$$PATH" go test -count=1 -timeout 20m ./e2e/...

test: vet build tools fuzz-smoke ## everything CI runs: vet, fuzz seeds (fuzz-smoke), unit, e2e (exec), and the image cases when a container runtime works
	@img=$$(bash hack/image.sh build-if-possible $(IMAGE) $(VERSION)) || exit 1; \
	imgenv=""; if [ -n "$$img" ]; then imgenv="E2E_IMAGE=$$img KPT_FN_RUNTIME=$$(bash hack/image.sh runtime)"; fi; \
	echo "go test ./... (image under test: $${img:-none})"; \
	env $$imgenv PATH="$(BIN):$$PATH" go test -count=1 -timeout 30m ./...

demo: build ## krm-merge pkg update on bundled ingress-nginx releases: values merged inside, a conflict marked, resolved, --continue
	KRM_MERGE=$(BIN)/krm-merge bash hack/demo.sh

image: ## build the container image ($(IMAGE)) with docker, or podman offline
	bash hack/image.sh build $(IMAGE) $(VERSION)

image-test: image tools ## the whole e2e suite against the image (kpt --image, render, kubectl kustomize)
	PATH="$(BIN):$$PATH" E2E_IMAGE=$(IMAGE) E2E_EVAL_RUNTIME=image KPT_FN_RUNTIME=$$(bash hack/image.sh runtime) \
		go test -count=1 -timeout 30m ./e2e/...

bench: ## benchmark krm-merge against kyaml: ~10 min, ~11 GB at the peak; prints markdown tables (with inline sources against path roles on kube-prometheus); then memory per input byte and node (BenchmarkMemory)
	go run ./bench/cmd/krm-merge-bench
	go test -run '^$$' -bench BenchmarkMemory -benchtime 1x ./bench
	$(MAKE) --no-print-directory bench-fleet

bench-fleet: ## pkg update --all on 500 kpt packages against a kpt pkg update loop (needs kpt): ~10 min; then outdated on 500 packages of 5 upstreams (BenchmarkOutdated500)
	go run ./bench/cmd/krm-merge-fleet-bench
	go test -run '^$$' -bench BenchmarkOutdated500 -benchtime 3x ./pkg/pkgupdate

bench-smoke: ## the same at small sizes, under a minute, no goal verdicts
	go run ./bench/cmd/krm-merge-bench -quick

fuzz-smoke: ## every fuzz target: seeds and corpus must pass, then 25 s of search (new findings reported, not fatal)
	FUZZ_SMOKE=1 bash hack/fuzz.sh 25s

FUZZ_EXECS ?= 2000000x
fuzz: ## every fuzz target for 2,000,000 executions (FUZZ_EXECS=2000000x), one after another (hours); logs in $(BIN)/fuzz; figures in docs/reliability.md
	bash hack/fuzz.sh $(FUZZ_EXECS) $(BIN)/fuzz

clean: ## remove build output
	rm -rf $(BIN)
