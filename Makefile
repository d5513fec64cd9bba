# gin3: `make run` starts everything on one machine; `make test` runs the tests.
# Both create the virtual environment and install what they need by themselves.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: run play test lint format lock simulate bench bench-bots bench-load scale-out clean

# requirements-dev.txt: what runs gin3 (requirements.txt, all the image installs) and
# what tests it, every package pinned with its hashes, so that every machine installs
# the same files. pip installs uv (requirements-bootstrap.txt, also hashed), and uv
# installs the rest: 5 s where pip took 21 (each compiled ahead, as pip does).
$(INSTALLED): requirements-bootstrap.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-bootstrap.txt
	$(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes --compile-bytecode -r requirements-dev.txt
	touch $(INSTALLED)

# make run serves plain HTTP on 127.0.0.1: the settings that need HTTPS are off (docs/deploy.md).
run: $(INSTALLED)
	GIN3_PLAIN_HTTP=1 $(BIN)/python manage.py serve

play: $(INSTALLED)
	$(BIN)/python manage.py migrate --noinput -v0
	$(BIN)/python manage.py play $(ARGS)

# The suite runs in JOBS processes (pytest-xdist). Each has its own test database, its
# own Redis database (GIN3_TEST_REDIS_DB, 12 unless set, plus the process's number: JOBS
# of them) and its own ports (tests/workers.py). JOBS=0 runs it in one process;
# ARGS="-m 'not slow'" leaves out the slowest tests. Three processes for two cores: a
# third of a test's time goes in waiting on a server, a worker or a browser (two kept
# the cores 64% busy and took 479 s; three, 79% and 415 s).
JOBS ?= 3

test: lint
	$(BIN)/python -m pytest -n $(JOBS) $(ARGS)

# mypy with django-stubs: the packages and settings are in pyproject.toml ([tool.mypy]).
lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(INSTALLED)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# After a change to requirements.in, requirements-dev.in or requirements-bootstrap.in: the locks, pinned and hashed.
lock: $(INSTALLED)
	$(BIN)/pip-compile --quiet --no-emit-index-url --no-emit-find-links --generate-hashes --strip-extras --allow-unsafe -o requirements-bootstrap.txt requirements-bootstrap.in
	$(BIN)/pip-compile --quiet --no-emit-index-url --no-emit-find-links --generate-hashes --strip-extras --allow-unsafe -o requirements.txt requirements.in
	$(BIN)/pip-compile --quiet --no-emit-index-url --no-emit-find-links --generate-hashes --strip-extras --allow-unsafe -o requirements-dev.txt requirements-dev.in

simulate: $(INSTALLED)
	$(BIN)/python manage.py simulate --matches 2000 --players simple,strong,strong

bench: $(INSTALLED)
	$(BIN)/python -m pip install --quiet -r requirements-bench.txt
	$(BIN)/python bench/engine.py

# The computer levels heads-up on duplicate deals (bench/bots.py; ARGS="--deals 500" for
# intervals of about ±1.5 points a hand).
bench-bots: $(INSTALLED)
	$(BIN)/python bench/bots.py $(ARGS)

# The service layer, the webhook over HTTP, the clock scan and the pages under load
# (bench/load.py; ARGS="--scale" seeds a million matches). With DATABASE_URL it
# runs on a database of its own beside that one, <name>_bench.
bench-load: $(INSTALLED)
	$(BIN)/python bench/load.py $(ARGS)

# 2 web processes, 2 Celery workers and beat play 50 matches through the webhook
# (scripts/scale_out.py); needs DATABASE_URL (PostgreSQL) and REDIS_URL.
scale-out: $(INSTALLED)
	$(BIN)/python scripts/scale_out.py $(ARGS)

clean:
	rm -rf $(VENV) var
