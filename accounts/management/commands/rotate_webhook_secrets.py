from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import Webhook
from accounts.secret_box import reseal


class Command(BaseCommand):
    help = (
        "Re-encrypts every webhook secret under the first of WEBHOOK_SECRET_KEYS, after "
        "which the other keys may be dropped."
    )

    def handle(self, *args, **options) -> None:
        resealed = 0
        for pk in Webhook.objects.values_list("pk", flat=True).iterator():
            with transaction.atomic():
                hook = Webhook.objects.select_for_update().filter(pk=pk).first()
                if hook is None:
                    continue
                hook.encrypted_secret = reseal(hook.encrypted_secret)
                hook.save(update_fields=["encrypted_secret"])
                resealed += 1
        self.stdout.write(f"{resealed} webhook secret(s) re-encrypted.")
