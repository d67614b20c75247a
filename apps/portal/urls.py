"""The owner portal's pages (tenant URLconf). Names are "<section>_<page>": the section is the tab."""

from django.urls import path

from apps.portal import views, views_api_keys, views_inbox, views_subjects, views_visitors, views_webhooks

app_name = "portal"
urlpatterns = [
    path("", views.business_home, name="home"),
    path("start/", views.home_start, name="home_start"),
    path("knowledge/", views.knowledge, name="knowledge"),
    path("knowledge/topics/<int:pk>/", views.topic, name="knowledge_topic"),
    path("knowledge/facts/<int:pk>/replace/", views.fact_replace, name="knowledge_replace"),
    path("knowledge/facts/<int:pk>/retire/", views.fact_retire_view, name="knowledge_retire"),
    path("knowledge/facts/<int:pk>/restore/", views.fact_restore_view, name="knowledge_restore"),
    path("knowledge/facts/<int:pk>/split/", views_subjects.fact_split_view, name="knowledge_split"),
    path("knowledge/disagreements/", views.disagreements, name="knowledge_disagreements"),
    path("knowledge/disagreements/<int:pk>/", views.disagreement_resolve_view, name="knowledge_resolve"),
    path(
        "knowledge/disagreements/<int:pk>/split/",
        views_subjects.disagreement_split_view,
        name="knowledge_resolve_split",
    ),
    path("sources/", views.sources, name="sources"),
    path("sources/sync/", views.sources_sync, name="sources_sync"),
    path("sources/upload/", views.sources_upload, name="sources_upload"),
    path("sources/answers/", views.owner_answer_add, name="sources_answer"),
    path("sources/<int:pk>/retire/", views.source_retire_view, name="sources_retire"),
    path("sources/jobs/<int:pk>/", views.job, name="sources_job"),
    path("gaps/", views.gaps, name="gaps"),
    path("gaps/<int:pk>/answer/", views.gap_answer_view, name="gaps_answer"),
    path("gaps/<int:pk>/dismiss/", views.gap_dismiss_view, name="gaps_dismiss"),
    path("inbox/", views_inbox.inbox, name="inbox"),
    path("inbox/settings/", views_inbox.inbox_settings, name="inbox_settings"),
    path("inbox/<int:pk>/", views_inbox.inbox_conversation, name="inbox_conversation"),
    path("inbox/<int:pk>/act/", views_inbox.inbox_act, name="inbox_act"),
    path("conversations/", views.conversations, name="conversations"),
    path("conversations/<int:pk>/", views.conversation, name="conversations_detail"),
    path("conversations/answers/<int:pk>/fix/", views.answer_fix, name="conversations_fix"),
    path("widget/", views.widget, name="widget"),
    path("widget/sites/", views.widget_site_add, name="widget_site"),
    path("team/", views.team, name="team"),
    path("api-keys/", views_api_keys.api_keys, name="api_keys"),
    path("api-keys/<str:prefix>/revoke/", views_api_keys.api_key_revoke_view, name="api_keys_revoke"),
    path("webhooks/", views_webhooks.webhooks, name="webhooks"),
    path("webhooks/<int:pk>/", views_webhooks.webhooks_endpoint, name="webhooks_endpoint"),
    path("webhooks/<int:pk>/secret/", views_webhooks.webhooks_roll, name="webhooks_roll"),
    path("webhooks/<int:pk>/delete/", views_webhooks.webhooks_delete, name="webhooks_delete"),
    path("webhooks/deliveries/<int:pk>/resend/", views_webhooks.webhooks_resend, name="webhooks_resend"),
    path("privacy/", views_visitors.privacy, name="privacy"),
    path("privacy/<str:visitor_id>/export/", views_visitors.privacy_export, name="privacy_export"),
    path("privacy/<str:visitor_id>/erase/", views_visitors.privacy_erase, name="privacy_erase"),
]
