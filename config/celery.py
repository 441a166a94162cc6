import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

# Redis URLs (redis://, rediss://, redis+socket://) use the transport that keeps
# unacknowledged tasks across a broker restart (see config/broker.py).
TRANSPORT_ALIASES["redis"] = TRANSPORT_ALIASES["rediss"] = "config.broker:Transport"

app = Celery("liarsdice")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
