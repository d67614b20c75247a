from django.apps import AppConfig


class GapsConfig(AppConfig):
    name = "apps.gaps"
    label = "gaps"
    verbose_name = "Knowledge gaps"

    def ready(self) -> None:
        # Imported in ready(): the re-check imports models, which need the app registry loaded.
        # Facts announce changes; gaps listen and re-check the open questions (facts never import gaps).
        from apps.facts.signals import topics_changed
        from apps.gaps.recheck import recheck_on_change

        topics_changed.connect(recheck_on_change, dispatch_uid="gaps-recheck")
