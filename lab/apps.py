from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "lab"
    label = "lab"
    verbose_name = "Laboratory (development only)"

    def ready(self) -> None:
        # Imported in ready(): lab.demo imports models, which need the app registry loaded.
        from apps.portal.signals import local_run_prepared
        from lab.demo import demo_for_local_run

        # `manage.py up` seeds the demo through this signal: the product never imports lab.
        local_run_prepared.connect(demo_for_local_run, dispatch_uid="lab.demo")
