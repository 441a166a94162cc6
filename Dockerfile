# syntax=docker/dockerfile:1
# One image for every process of the Procfile: web (gunicorn), worker and beat (Celery).

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt /tmp/requirements.txt
RUN pip install -r /tmp/requirements.txt

FROM python:3.11-slim AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.base \
    DATA_DIR=/tmp \
    PORT=8000
RUN groupadd --system app && useradd --system --gid app --home-dir /app app
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
# The code stays owned by root: the app user can read it, not change it.
COPY . /app
# Static files (play page, admin, Swagger UI) are collected at build time; settings need a database
# URL and key to load, never used here.
RUN DATABASE_URL=postgres://build@localhost/build SECRET_KEY=build-only \
    python manage.py collectstatic --noinput --verbosity 0
USER app
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"
CMD ["python", "-m", "scripts.supervise", "--exec", "web"]
