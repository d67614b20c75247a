from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "apps.retrieval"
    label = "retrieval"
    verbose_name = "Retrieval index"

    def ready(self) -> None:
        # Imported in ready(): the receivers import models, which need the app registry loaded.
        # Facts announce changes; retrieval listens and re-indexes (facts never import retrieval).
        from apps.facts.signals import topics_changed
        from apps.retrieval.receivers import reindex_changed_topics

        topics_changed.connect(reindex_changed_topics, dispatch_uid="retrieval-reindex")
        # Facts compares subject names by meaning through a provider it defines; the embedding model
        # is retrieval's, so retrieval registers it (it loads on the first comparison). Imported in
        # ready() as the receivers are.
        from apps.retrieval.subject_similarity import register

        register()
