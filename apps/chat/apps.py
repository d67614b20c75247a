from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "apps.chat"
    label = "chat"
    verbose_name = "Conversations"

    def ready(self) -> None:
        # Imported in ready(): the receivers and the gap services import models, which need the app
        # registry loaded. The owner's answer to a gap is posted into the visitor's conversation.
        from apps.chat.receivers import post_owner_answer
        from apps.gaps.services import gap_answered

        gap_answered.connect(post_owner_answer, dispatch_uid="chat-owner-answer")
