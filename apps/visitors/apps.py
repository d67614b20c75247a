from django.apps import AppConfig


class VisitorsConfig(AppConfig):
    name = "apps.visitors"
    label = "visitors"
    verbose_name = "Visitor data"

    def ready(self) -> None:
        from apps.gaps.services import contact_left
        from apps.visitors.receivers import contact_left_record

        contact_left.connect(contact_left_record, dispatch_uid="visitors-contact-left")
