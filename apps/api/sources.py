"""Sources: the list, the website (address, schedule, limits), sync now, uploading a document, and the
jobs that read them in, with their progress and change reports. Reading happens in the worker."""

from __future__ import annotations

import django_filters
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api import serializers as out
from apps.api.base import ApiView, input_errors
from apps.facts import ingestion
from apps.facts.models import IngestionJob, JobKind, JobStatus, Source, SourceKind
from apps.facts.services import source_retire

TAG = ["sources"]


class SourceFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=SourceKind.choices)
    is_active = django_filters.BooleanFilter()

    class Meta:
        model = Source
        fields = ["kind", "is_active"]


class SourceList(ApiView):
    queryset = Source.objects.all()
    filter_backends = [DjangoFilterBackend]
    filterset_class = SourceFilter

    @extend_schema(tags=TAG, responses=out.SourceOut(many=True))
    def get(self, request: Request) -> Response:
        """Website pages, documents, owner answers and the profile; filter by kind or by active."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(out.SourceOut(page, many=True).data)


class SourceDetail(ApiView):
    @extend_schema(tags=TAG, responses=out.SourceDetailOut)
    def get(self, request: Request, pk: int) -> Response:
        """One source with each reading of it (oldest first) and what each reading changed."""
        source = get_object_or_404(Source.objects.prefetch_related("versions"), pk=pk)
        return Response(out.SourceDetailOut(source).data)


class SourceRetire(ApiView):
    @extend_schema(tags=TAG, request=out.ReasonIn, responses=out.ChangeOut)
    def post(self, request: Request, pk: int) -> Response:
        """Retire a source: every fact that only it stated is retired with it."""
        source = get_object_or_404(Source, pk=pk, is_active=True)
        data = self.valid(out.ReasonIn)
        result = source_retire(source=source, reason=data["reason"], actor=self.actor)
        return Response(
            out.ChangeOut({"added": [], "retired": result.retired, "confirmed": [], "disagreements": []}).data
        )


class Website(ApiView):
    @extend_schema(tags=TAG, responses=out.WebsiteOut)
    def get(self, request: Request) -> Response:
        """The website address, how often it is re-read, and the crawl's limits."""
        return Response(out.WebsiteOut(ingestion.website_settings_get()).data)

    @extend_schema(tags=TAG, request=out.WebsiteIn, responses={200: out.WebsiteOut, 202: out.JobOut})
    def patch(self, request: Request) -> Response:
        """Change the website settings. A new address starts its first crawl (202 with the job)."""
        data = self.valid(out.WebsiteIn)
        with input_errors():
            row, job = ingestion.website_settings_save(actor=self.actor, **data)
        if job is None:
            return Response(out.WebsiteOut(row).data)
        return Response(out.JobOut(job).data, status=status.HTTP_202_ACCEPTED)


class WebsiteSync(ApiView):
    @extend_schema(tags=TAG, request=None, responses={202: out.JobOut})
    def post(self, request: Request) -> Response:
        """Re-read the website now, in the worker; a sync under way is returned rather than doubled.
        A refused address (not public) comes back as a failed job with the reason."""
        with input_errors():
            job = ingestion.website_sync_now(actor=self.actor, background=True)
        return Response(out.JobOut(job).data, status=status.HTTP_202_ACCEPTED)


class DocumentUpload(ApiView):
    parser_classes = [MultiPartParser]

    @extend_schema(tags=TAG, request=out.UploadIn, responses={202: out.JobOut})
    def post(self, request: Request) -> Response:
        """Upload a document (PDF, Word, HTML, text); it is read in the worker. The same bytes again are
        a no-op; new bytes under the same name are read as a change. Refused files are failed jobs."""
        data = self.valid(out.UploadIn)
        upload = data["file"]
        with input_errors():
            # One byte over the limit is enough for document_upload to refuse an oversized file.
            job = ingestion.document_upload(
                filename=upload.name,
                data=upload.read(ingestion.MAX_UPLOAD_BYTES + 1),
                visibility=data["visibility"],
                actor=self.actor,
                background=True,
            )
        return Response(out.JobOut(job).data, status=status.HTTP_202_ACCEPTED)


class JobFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=JobKind.choices)
    status = django_filters.ChoiceFilter(choices=JobStatus.choices)

    class Meta:
        model = IngestionJob
        fields = ["kind", "status"]


class JobList(ApiView):
    queryset = IngestionJob.objects.defer("report")
    filter_backends = [DjangoFilterBackend]
    filterset_class = JobFilter

    @extend_schema(tags=TAG, responses=out.JobOut(many=True))
    def get(self, request: Request) -> Response:
        """Crawls, re-syncs and uploads, newest first, with their progress."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(out.JobOut(page, many=True).data)


class JobDetail(ApiView):
    @extend_schema(tags=TAG, responses=out.JobDetailOut)
    def get(self, request: Request, pk: int) -> Response:
        """One job: progress, errors and its change report (poll it while it runs)."""
        return Response(out.JobDetailOut(get_object_or_404(IngestionJob, pk=pk)).data)
