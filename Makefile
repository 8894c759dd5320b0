# `make run` and `make test` both set up everything they need on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The browser tests and bench/site_speed.py drive Debian's chromium through playwright
# (playwright's own browser download is not used: it needs hosts other than the package registries).
# The emoji font only makes the screenshots in test-artifacts/ show the site's badges.
CHROMIUM := /usr/bin/chromium
EMOJI_FONT := /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
BROWSER_PACKAGES := chromium fonts-noto-color-emoji

.PHONY: run test bench install browser clean

$(STAMP): requirements.txt requirements-worker.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

# Installs chromium when it is missing and we may (root with apt-get); otherwise says how.
# Never fails: without a browser the browser tests skip, saying why.
browser:
	@if [ -x $(CHROMIUM) ] && [ -e $(EMOJI_FONT) ]; then \
		true; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing Debian's $(BROWSER_PACKAGES) for the browser tests (apt-get)..."; \
		if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; \
		then echo "installed: $$($(CHROMIUM) --version 2>/dev/null)"; \
		elif [ -x $(CHROMIUM) ]; then echo "note: could not install $(BROWSER_PACKAGES); chromium is there, tests run"; \
		else echo "WARNING: could not install chromium with apt-get; the browser tests will be SKIPPED."; \
		fi; \
	elif [ ! -x $(CHROMIUM) ]; then \
		echo "WARNING: $(CHROMIUM) is missing and this is not root on a Debian/Ubuntu machine, so it cannot be"; \
		echo "         installed here. The browser tests will be SKIPPED. To run them, install it as root:"; \
		echo "             apt-get update && apt-get install -y $(BROWSER_PACKAGES)"; \
	fi

run: $(STAMP)
	$(PY) app.py

test: $(STAMP) browser
	$(PY) -m pytest -q tests

# Every bench runs even when one misses its goal; the target fails at the end, naming them.
BENCHES := extraction_corpus score_speed submit_speed pipeline_speed video_speed runner_overlap site_speed site_capacity

bench: $(STAMP) browser
	@missed=""; for name in $(BENCHES); do \
		echo "== bench/$$name.py"; $(PY) bench/$$name.py || missed="$$missed $$name"; echo; \
	done; \
	if [ -n "$$missed" ]; then echo "missed a goal:$$missed"; exit 1; fi

clean:
	rm -rf $(VENV) .pytest_cache
