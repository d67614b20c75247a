"""The knowledge layer's records (one set per business schema).

A *source* (website page, document, owner answer, profile form) is read into *versions*; each version
is split into hashed *parts*; parts yield *facts* (one detail each), and every source that states a
fact is kept as *evidence*. Facts are never deleted or edited: they are retired with a reason, and
every change is written to the append-only *fact event* log. Database triggers (migration 0002)
enforce this below the ORM.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from apps.tenants.db import current_schema


class SourceKind(models.TextChoices):
    OWNER_ANSWER = "owner_answer", "Owner answer"
    PROFILE = "profile", "Business profile"
    DOCUMENT = "document", "Document"
    WEBSITE = "website", "Website page"


# Precedence: a source can replace a fact only if it ranks at least as high as the fact's strongest
# evidence; a lower-ranked source that contradicts an owner's fact becomes a disagreement.
PRECEDENCE = {
    SourceKind.OWNER_ANSWER: 3,
    SourceKind.PROFILE: 2,
    SourceKind.DOCUMENT: 1,
    SourceKind.WEBSITE: 1,
}
OWNER_RANK = PRECEDENCE[SourceKind.PROFILE]


class Visibility(models.TextChoices):
    PUBLIC = "public", "Visitors and staff"
    INTERNAL = "internal", "Staff only"


class Source(models.Model):
    kind = models.CharField(max_length=20, choices=SourceKind.choices)
    ref = models.CharField(max_length=500, help_text="URL, file name, or an id for owner answers")
    title = models.CharField(max_length=300, blank=True)
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC)
    is_active = models.BooleanField(default=True)
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_reason = models.CharField(max_length=300, blank=True)
    last_hash = models.CharField(max_length=64, blank=True)
    last_read_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "ref"], name="one_source_per_ref")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.title or self.ref}"


class VersionOutcome(models.TextChoices):
    # Stored and committed before it is read: a reading that fails part-way leaves the event here
    # (nothing lost), and the worker reads it again (apps.facts.rereading).
    RECEIVED = "received", "Received (not read yet)"
    PROCESSED = "processed", "Processed"
    SEEN = "seen", "Unchanged (seen)"
    RETIRED = "retired", "Source retired"


class SourceVersion(models.Model):
    """One reading of a source: what it said, when, and what that changed."""

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="versions")
    content_hash = models.CharField(max_length=64)
    content = models.TextField(blank=True)
    question = models.TextField(blank=True, help_text="The question an owner answer replies to")
    read_at = models.DateTimeField(db_index=True)
    outcome = models.CharField(max_length=12, choices=VersionOutcome.choices)
    extractor = models.CharField(max_length=40, blank=True)
    parts_added = models.PositiveIntegerField(default=0)
    parts_removed = models.PositiveIntegerField(default=0)
    facts_added = models.PositiveIntegerField(default=0)
    facts_confirmed = models.PositiveIntegerField(default=0)
    facts_retired = models.PositiveIntegerField(default=0)
    disagreements = models.PositiveIntegerField(default=0)
    skipped_parts = models.JSONField(
        default=list, blank=True, help_text="Parts that could not be read, and why"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["read_at", "id"]

    def __str__(self) -> str:
        return f"{self.source} @ {self.read_at:%Y-%m-%d %H:%M} ({self.outcome})"


class PartReading(models.TextChoices):
    READ = "read", "Read"
    NO_RECORDS = "no_records", "No detail could be read"
    RETRY = "retry", "Read by the built-in reader; the model will read it again"
    GAVE_UP = "gave_up", "Read by the built-in reader; the model could not read it"
    SKIPPED = "skipped", "Not read (refused or not text)"


class SourcePart(models.Model):
    """A hashed sentence/paragraph of a source. ``removed_in`` is set when a later version drops it.

    ``reading`` says how its records were made. When the configured language model fails on it, the
    built-in extractor's records stand in (``Fact.stand_in``) and the worker asks the model again at
    ``retry_at`` with exponential backoff; its records then supersede the stand-ins (decision 0020)."""

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="parts")
    hash = models.CharField(max_length=64)
    text = models.TextField()
    heading = models.CharField(max_length=500, blank=True)
    added_in = models.ForeignKey(SourceVersion, on_delete=models.PROTECT, related_name="parts_added_here")
    removed_in = models.ForeignKey(
        SourceVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="parts_removed_here"
    )
    reading = models.CharField(max_length=12, choices=PartReading.choices, default=PartReading.READ)
    read_by = models.CharField(max_length=40, blank=True, help_text="The extractor whose records stand")
    read_error = models.TextField(blank=True, help_text="Why the configured extractor failed, last time")
    read_attempts = models.PositiveSmallIntegerField(default=0, help_text="Failed model readings so far")
    retry_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "hash"],
                condition=Q(removed_in__isnull=True),
                name="one_present_part_per_hash",
            )
        ]


class Topic(models.Model):
    """A short subject name reused across sources so facts on one subject compare and render together."""

    name = models.CharField(max_length=120)
    key = models.CharField(max_length=120, unique=True, help_text="Normalised name used for matching")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class FactStatus(models.TextChoices):
    LIVE = "live", "Live"
    RETIRED = "retired", "Retired"


class Fact(models.Model):
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="facts")
    aspect = models.CharField(max_length=200, help_text="Which attribute of the topic this states")
    statement = models.TextField()
    value = models.CharField(max_length=200, blank=True)
    learned_at = models.DateTimeField(db_index=True)
    valid_from = models.DateField(null=True, blank=True)
    valid_to = models.DateField(null=True, blank=True)
    source_kind = models.CharField(
        max_length=20, choices=SourceKind.choices, help_text="Kind of its first source"
    )
    origin = models.ForeignKey(SourceVersion, on_delete=models.PROTECT, related_name="facts_created")
    question = models.TextField(blank=True, help_text="The question an owner answered, when it came from one")
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC)
    replaces = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="replaced_by")
    # Set when the rules filed this fact under a live subject that names its own by meaning
    # (apps.facts.subjects): {topic, aspect, fact, similarity, method, own_topic, own_aspect, reason}.
    # The owner can split it back into its own subject (services.fact_subject_split).
    matched_subject = models.JSONField(default=dict, blank=True)
    # Made by the built-in extractor because the language model failed on its part: live at once, and
    # superseded (retired with a reason) when the model reads the part again (decision 0020).
    stand_in = models.BooleanField(default=False)
    status = models.CharField(
        max_length=10, choices=FactStatus.choices, default=FactStatus.LIVE, db_index=True
    )
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_reason = models.CharField(max_length=300, blank=True)
    retired_by = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The fact that replaced it",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["learned_at", "id"]
        indexes = [models.Index(fields=["topic", "aspect", "status"])]
        constraints = [
            models.CheckConstraint(
                name="valid_range_ordered",
                condition=Q(valid_from__isnull=True)
                | Q(valid_to__isnull=True)
                | Q(valid_from__lte=models.F("valid_to")),
            )
        ]

    def __str__(self) -> str:
        return self.statement

    @property
    def is_temporary(self) -> bool:
        return self.valid_from is not None or self.valid_to is not None


class Evidence(models.Model):
    """A source that states a fact. A fact stays live while any of its evidence is current."""

    fact = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="evidence")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="evidence")
    version = models.ForeignKey(SourceVersion, on_delete=models.PROTECT, related_name="evidence")
    part = models.ForeignKey(
        SourcePart, null=True, blank=True, on_delete=models.PROTECT, related_name="evidence"
    )
    kind = models.CharField(max_length=20, choices=SourceKind.choices)
    added_at = models.DateTimeField()
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        indexes = [models.Index(fields=["fact", "withdrawn_at"])]


class EventKind(models.TextChoices):
    CREATED = "created", "Learned"
    CONFIRMED = "confirmed", "Stated again by another source"
    RETIRED = "retired", "Retired"
    RESTORED = "restored", "Restored"
    DISAGREEMENT = "disagreement", "Contradicted by a lower-precedence source"


class FactEvent(models.Model):
    """Append-only history: what changed, when and why. Triggers refuse UPDATE, DELETE and TRUNCATE."""

    fact = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="events")
    kind = models.CharField(max_length=20, choices=EventKind.choices)
    reason = models.CharField(max_length=500)
    version = models.ForeignKey(
        SourceVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    related = models.ForeignKey(Fact, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    actor = models.CharField(max_length=200, blank=True, help_text="Who acted, for owner actions (email)")
    at = models.DateTimeField()

    class Meta:
        ordering = ["at", "id"]


class DisagreementStatus(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted (source value applied)"
    DISMISSED = "dismissed", "Dismissed (owner value kept)"


class Disagreement(models.Model):
    """A lower-precedence source contradicting the owner: recorded, not applied, not discarded."""

    fact = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="disagreements")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="disagreements")
    version = models.ForeignKey(SourceVersion, on_delete=models.PROTECT, related_name="disagreements_found")
    part = models.ForeignKey(SourcePart, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    candidate = models.JSONField(
        help_text="The contradicting record as extracted (topic, aspect, statement...)"
    )
    statement = models.TextField()
    status = models.CharField(
        max_length=10, choices=DisagreementStatus.choices, default=DisagreementStatus.OPEN
    )
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=200, blank=True)
    resulting_fact = models.ForeignKey(
        Fact, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.statement} (vs {self.fact.statement})"


# ----------------------------------------------------------------------------------------------
# Ingestion: the business's website settings and the tracked jobs that read sources in (issue 7).
# They hold progress and reports only; the knowledge itself is written by services.source_ingest.


class SyncSchedule(models.TextChoices):
    DAILY = "daily", "Daily"
    WEEKLY = "weekly", "Weekly"
    OFF = "off", "Off (only on demand)"


class WebsiteSettings(models.Model):
    """The business's website and how it is kept in sync. One row per business (its schema)."""

    start_url = models.URLField(max_length=500, blank=True, help_text="The page the crawl starts from")
    schedule = models.CharField(max_length=10, choices=SyncSchedule.choices, default=SyncSchedule.DAILY)
    max_pages = models.PositiveIntegerField(default=50)
    max_depth = models.PositiveSmallIntegerField(default=3, help_text="Link hops from the start page")
    last_sync_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "website settings"
        verbose_name_plural = "website settings"
        # One row per schema: services always use pk=1.
        constraints = [models.CheckConstraint(condition=Q(id=1), name="one_website_settings_row")]

    def __str__(self) -> str:
        return self.start_url or "(no website yet)"


class JobKind(models.TextChoices):
    CRAWL = "crawl", "Website crawl"
    RESYNC = "resync", "Website re-sync"
    UPLOAD = "upload", "Document upload"


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


def _document_upload_to(instance: models.Model, filename: str) -> str:
    # Files of each business under its own folder, so one business's uploads never mix with another's.
    return f"{current_schema()}/documents/{filename}"


class IngestionJob(models.Model):
    """One tracked ingestion (crawl, re-sync or upload): its progress, errors and change report.

    Re-runnable by id: ``attempt`` is bumped by each run, and a run whose attempt is no longer the
    current one stops writing (see apps.facts.ingestion)."""

    kind = models.CharField(max_length=10, choices=JobKind.choices)
    status = models.CharField(
        max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True
    )
    target = models.CharField(max_length=500, help_text="Start URL, or the uploaded file's name")
    file = models.FileField(upload_to=_document_upload_to, max_length=500, blank=True)
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC)
    options = models.JSONField(default=dict, blank=True, help_text="Crawl limits used by this job")
    total = models.PositiveIntegerField(default=0, help_text="Pages (or files) known so far")
    done = models.PositiveIntegerField(default=0)
    facts_added = models.PositiveIntegerField(default=0)
    facts_retired = models.PositiveIntegerField(default=0)
    disagreements = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="[{url or file, error}]")
    report = models.JSONField(default=dict, blank=True, help_text="The change report")
    error = models.TextField(blank=True, help_text="Why the job as a whole failed")
    attempt = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_by = models.CharField(max_length=200, blank=True, help_text="Who started it (email or system)")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["kind", "status"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}: {self.target}"

    @property
    def progress(self) -> str:
        return f"{self.done}/{self.total}" if self.total else f"{self.done}"
