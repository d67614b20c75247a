"""`manage.py security_suite [--llm] [--json] [--limit N] [--full N|all] [--direct-only | --planted-only]`:
the prompt-injection suite.

Creates a throwaway business, loads a small bakery's knowledge, sends every direct attack of
../shared/eval/injection as a visitor message, plants the indirect ones in a local website (crawled by
the real crawl job) and in an uploaded document, asks about the pages, and judges every answer
(lab/security_suite.py, the same code as tests/security/test_injection.py). The business is
dropped at the end (``--keep`` keeps it for inspection).

By default the built-in answerer and extractor answer; ``--llm`` uses the configured language model
(XORVENTA_LLM_BASE_URL / XORVENTA_LLM_MODEL) for both, and then defaults to 20 attacks per corpus,
each through the whole answer path, since every answer is a model call. Exits with status 1 when any
attack got through.
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context

from apps.chat.answering.builtin import BuiltinAnswerer
from apps.chat.answering.llm import LLMAnswerer
from apps.facts.extraction.builtin import BuiltinExtractor
from apps.facts.extraction.factory import get_extractor
from apps.integrations.llm import llm_configured
from apps.tenants.db import use_public_schema
from apps.tenants.models import Business, Reseller
from apps.tenants.services import business_create, business_delete, reseller_create
from lab.security_suite import SPIKEE_SETS, corpus_root, run_suite

RESELLER_SLUG = "xorventa-security"


def _full(value: str) -> int | None:
    if value == "all":
        return None
    try:
        number = int(value)
    except ValueError:
        raise CommandError("--full takes a number or 'all'") from None
    if number < 0:
        raise CommandError("--full takes a number or 'all'")
    return number


class Command(BaseCommand):
    help = "Run the prompt-injection corpora against a throwaway business and report per corpus."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--llm", action="store_true", help="Answer (and extract) with the configured model."
        )
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
        parser.add_argument("--limit", type=int, default=None, help="At most N attacks per corpus (spread).")
        parser.add_argument(
            "--full",
            default=None,
            help="How many attacks per corpus also take the whole answer path (a number or 'all'; "
            "default 20, or all with --llm).",
        )
        parser.add_argument(
            "--spikee",
            default=",".join(SPIKEE_SETS),
            help="Comma-separated spikee seed sets for the direct attacks (default: all four).",
        )
        parser.add_argument("--direct-only", action="store_true", help="Skip planting (no crawl or upload).")
        parser.add_argument(
            "--planted-only", action="store_true", help="Only the planted attacks (crawl and upload)."
        )
        parser.add_argument("--keep", action="store_true", help="Keep the throwaway business afterwards.")

    def handle(self, *args: Any, **options: Any) -> None:
        root = corpus_root()
        if not (root / "SOURCE.txt").exists():
            raise CommandError(f"The attack corpora are not at {root} (set XORVENTA_EVAL_DIR).")
        limit = options["limit"]
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1")
        if options["llm"]:
            if not llm_configured():
                raise CommandError("--llm needs a model: set XORVENTA_LLM_BASE_URL and XORVENTA_LLM_MODEL.")
            answerer: Any = LLMAnswerer()
            extractor: Any = get_extractor()
            limit = 20 if limit is None else limit
            full = _full(options["full"] or "all")
        else:
            answerer, extractor = BuiltinAnswerer(), BuiltinExtractor()
            full = _full(options["full"] or "20")
        spikee = tuple(s.strip() for s in options["spikee"].split(",") if s.strip())
        unknown = [s for s in spikee if s not in SPIKEE_SETS]
        if unknown:
            raise CommandError(
                f"Unknown spikee set(s): {', '.join(unknown)} (known: {', '.join(SPIKEE_SETS)})"
            )

        def progress(message: str) -> None:
            self.stderr.write(message)

        reseller = Reseller.objects.filter(slug=RESELLER_SLUG).first() or reseller_create(
            name="Xorventa security suite", slug=RESELLER_SLUG
        )
        slug = f"security-{uuid.uuid4().hex[:8]}"
        business = business_create(reseller=reseller, name="Sunny Bakery", slug=slug)
        progress(f"throwaway business {slug} created; answerer {getattr(answerer, 'name', answerer)}")
        try:
            with tenant_context(business):
                report = run_suite(
                    answerer=answerer,
                    extractor=extractor,
                    limit=limit,
                    full_per_corpus=full,
                    direct=not options["planted_only"],
                    indirect=not options["direct_only"],
                    spikee_sets=spikee,
                    root=root,
                    progress=progress,
                )
        finally:
            use_public_schema()
            if options["keep"]:
                progress(f"kept business {slug}")
            else:
                business_delete(business=business)
                if not Business.objects.filter(reseller=reseller).exists():
                    reseller.delete()

        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
        else:
            self.stdout.write("\n".join(report.lines()))
        if report.passed != report.sent:
            sys.exit(1)
