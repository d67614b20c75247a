from django.apps import AppConfig


class FeedbackConfig(AppConfig):
    name = "apps.feedback"
    label = "feedback"
    verbose_name = "Answer feedback"
