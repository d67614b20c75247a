"""The v1 API of one business (tenant URLconf: <slug>.<base domain>/api/v1/... or /t/<slug>/api/v1/...)."""

from django.urls import path

from apps.api import conversations, converters, knowledge, questions, sources, widget  # noqa: F401

urlpatterns = [
    path("knowledge/topics", knowledge.TopicList.as_view(), name="api-topics"),
    path("knowledge/topics/<id:pk>", knowledge.TopicDetail.as_view(), name="api-topic"),
    path("knowledge/facts", knowledge.FactList.as_view(), name="api-facts"),
    path("knowledge/facts/<id:pk>", knowledge.FactDetail.as_view(), name="api-fact"),
    path("knowledge/facts/<id:pk>/correct", knowledge.FactCorrect.as_view(), name="api-fact-correct"),
    path("knowledge/facts/<id:pk>/retire", knowledge.FactRetire.as_view(), name="api-fact-retire"),
    path("knowledge/facts/<id:pk>/restore", knowledge.FactRestore.as_view(), name="api-fact-restore"),
    path("knowledge/facts/<id:pk>/split", knowledge.FactSplit.as_view(), name="api-fact-split"),
    path("knowledge/answers", knowledge.OwnerAnswer.as_view(), name="api-owner-answer"),
    path("knowledge/disagreements", knowledge.DisagreementList.as_view(), name="api-disagreements"),
    path("knowledge/disagreements/<id:pk>", knowledge.DisagreementDetail.as_view(), name="api-disagreement"),
    path(
        "knowledge/disagreements/<id:pk>/resolve",
        knowledge.DisagreementResolve.as_view(),
        name="api-disagreement-resolve",
    ),
    path(
        "knowledge/disagreements/<id:pk>/split",
        knowledge.DisagreementSplit.as_view(),
        name="api-disagreement-split",
    ),
    path("sources", sources.SourceList.as_view(), name="api-sources"),
    path("sources/<id:pk>", sources.SourceDetail.as_view(), name="api-source"),
    path("sources/<id:pk>/retire", sources.SourceRetire.as_view(), name="api-source-retire"),
    path("sources/website", sources.Website.as_view(), name="api-website"),
    path("sources/website/sync", sources.WebsiteSync.as_view(), name="api-website-sync"),
    path("sources/documents", sources.DocumentUpload.as_view(), name="api-documents"),
    path("sources/jobs", sources.JobList.as_view(), name="api-jobs"),
    path("sources/jobs/<id:pk>", sources.JobDetail.as_view(), name="api-job"),
    path("questions", questions.QuestionList.as_view(), name="api-questions"),
    path("questions/<id:pk>", questions.QuestionDetail.as_view(), name="api-question"),
    path("questions/<id:pk>/answer", questions.QuestionAnswer.as_view(), name="api-question-answer"),
    path("questions/<id:pk>/dismiss", questions.QuestionDismiss.as_view(), name="api-question-dismiss"),
    path("questions/<id:pk>/merge", questions.QuestionMerge.as_view(), name="api-question-merge"),
    path("conversations", conversations.ConversationList.as_view(), name="api-conversations"),
    path("conversations/export", conversations.ConversationExport.as_view(), name="api-conversations-export"),
    path("conversations/<id:pk>", conversations.ConversationDetail.as_view(), name="api-conversation"),
    path("widget/settings", widget.Widget.as_view(), name="api-widget-settings"),
]
