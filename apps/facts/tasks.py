"""Background tasks of the knowledge layer (django-q2), thin on purpose: the work is in ingestion.py.

Enqueue them only through ``apps.tenants.tasks.enqueue_for_business`` (or a Schedule whose function is
``run_for_business``): the worker runs tasks in the public schema, and ``run_for_business`` enters the
business's schema before calling these.
"""

from __future__ import annotations

from apps.facts.ingestion import ingestion_job_run, website_resync_scheduled
from apps.facts.rereading import parts_reread_due


def ingestion_job_task(job_id: int) -> str:
    job = ingestion_job_run(job_id)
    return f"{job.kind} #{job.pk}: {job.status}"


def website_resync_task() -> str:
    job = website_resync_scheduled()
    return f"resync #{job.pk}: {job.status}" if job is not None else "no re-sync due"


def parts_reread_task() -> str:
    return str(parts_reread_due())
