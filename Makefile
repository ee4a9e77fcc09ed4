# Reproduce the figures of Guo, Thomas & Brunskill (NIPS 2017) and test the harness.
GO       ?= go
REV      := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
BIN      := bin/runexp
WORKERS  ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build fig2 fig3 fig4 figs test bench clean

all: build

build:
	$(GO) build -ldflags "-X main.revision=$(REV)" -o $(BIN) ./cmd/runexp

## fig4: Figure 4 (Experiment 3, INCRIS on the sub-episode MDP) -> results/fig4/
fig4: build
	$(BIN) run -workers $(WORKERS) configs/fig4.yaml

## fig2: Figure 2 (Experiment 1, PDIS with m-step options on NoisyTaxi) -> results/fig2/
fig2: build
	$(BIN) run -workers $(WORKERS) configs/fig2.yaml

## fig3: Figure 3 (Experiment 2, PDIS vs partitioned PDIS on NoisyTaxi) -> results/fig3/
fig3: build
	$(BIN) run -workers $(WORKERS) configs/fig3.yaml

## figs: every figure that exists
figs: fig2 fig3 fig4

## test: the whole test suite (what .ci/run runs)
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

## bench: the benchmarks, 5 runs each (feed the output to benchstat)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./... | tee bench.txt

clean:
	rm -rf bin
