from django.apps import AppConfig


class GapsConfig(AppConfig):
    name = "apps.gaps"
    label = "gaps"
    verbose_name = "Knowledge gaps"
