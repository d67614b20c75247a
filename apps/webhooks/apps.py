from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "apps.webhooks"
    label = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        # Imported in ready(): the receivers import models, which need the app registry loaded.
        from apps.webhooks.receivers import connect

        connect()
