# The two commands of the README, and a few helpers. The work is in scripts/.
.PHONY: run build test setup bench clean

## Build everything (installing pinned tools on first use) and run Hearth on 127.0.0.1:8080.
run: build
	scripts/run.sh

## Build the release app (dist/) and the release server binary.
build:
	scripts/setup.sh build
	scripts/build.sh

## The whole test suite (installs its tools, Chromium and ChromeDriver on first use:
## scripts/test.sh runs scripts/setup.sh test beside the native build).
test:
	scripts/test.sh

## Record benchmark figures in docs/BENCHMARKS.md.
bench:
	scripts/setup.sh build
	bench/run.sh

clean:
	cargo clean
	rm -rf dist e2e/artifacts
