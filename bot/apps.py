import logging

from django.apps import AppConfig
from django.conf import settings

log = logging.getLogger(__name__)


class BotConfig(AppConfig):
    name = "bot"
    verbose_name = "Channels"

    def ready(self) -> None:
        # Said once at startup, so that a missing setting is not found by a player.
        if not settings.SMS_ENABLED:
            log.info("SMS is off: set TWILIO_* to enable (docs/sms.md)")
