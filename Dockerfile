# One image for every part of gin3: the site, the Celery workers and beat, the
# Telegram bot. docker-compose.yml runs each as its own container with
# "python manage.py serve --only PART". Only the runtime lock is installed
# (requirements.txt, every package pinned and hashed): no test tool.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GIN3_VAR_DIR=/app/var \
    PROMETHEUS_MULTIPROC_DIR=/app/var/metrics \
    FORWARDED_ALLOW_IPS=*

WORKDIR /app
COPY requirements.txt .
RUN pip install --require-hashes -r requirements.txt

COPY . .
# The admin's static files, served by WhiteNoise. The key only lets settings
# load here; the containers get the real SECRET_KEY from the environment.
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && rm -rf /app/var/broker /app/var/broker-control /app/var/metrics \
    && mkdir -p /app/var/metrics \
    && useradd --create-home --uid 1000 gin3 \
    && chown -R gin3 /app/var

USER gin3
EXPOSE 8000
# The site as manage.py serve runs it: manage.py web (games/management/commands/web.py
# says why), waitress in GIN3_WEB_WORKERS processes of GIN3_WEB_THREADS threads.
CMD ["python", "manage.py", "serve", "--only", "web", "--host", "0.0.0.0", "--port", "8000"]
