from django.apps import AppConfig


class VisitorsConfig(AppConfig):
    name = "apps.visitors"
    label = "visitors"
    verbose_name = "Visitor data"

    def ready(self) -> None:
        # Imported in ready(): the gap services and the receiver import models, which need the app
        # registry loaded. Contact details left for a gap are recorded as the visitor's.
        from apps.gaps.services import contact_left
        from apps.visitors.receivers import contact_left_record

        contact_left.connect(contact_left_record, dispatch_uid="visitors-contact-left")
