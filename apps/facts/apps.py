from django.apps import AppConfig


class FactsConfig(AppConfig):
    name = "apps.facts"
    label = "facts"
    verbose_name = "Knowledge"
