"""Smoke test of the benchmark code (bench/, `manage.py bench`): the smallest sizes run end to end in
throwaway businesses that are deleted afterwards. No timing is asserted: timings depend on the machine."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from bench.report import Section, stat
from tests.helpers import eval_path, needs_eval

DSTC10 = eval_path("dstc10", "knowledge.json")


def test_stats_tables_and_json() -> None:
    s = stat([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s.n == 5 and s.median == 3.0 and 4.0 < s.p95 <= 100.0
    assert stat([]).cell() == "-"
    section = Section("demo", "a demo")
    table = section.table("T", ["a", "b"])
    table.add("x", s)
    section.target("p95", s.p95, 1000, "ms")
    text = section.markdown()
    assert "| x | 3.0 / " in text and "met" in text
    assert section.as_json()["tables"][0]["rows"][0][1]["median"] == 3.0


def test_unknown_benchmark_is_refused() -> None:
    with pytest.raises(CommandError, match="Unknown benchmark"):
        call_command("bench", "nope")


@needs_eval(DSTC10)
@pytest.mark.django_db(transaction=True)
def test_retrieve_smallest_size_loads_measures_and_cleans_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from django_tenants.utils import tenant_context

    from apps.retrieval.models import Piece
    from apps.tenants.models import Business
    from bench import retrieve
    from bench.common import Context, dstc_questions

    def random_vectors(
        n: int, ctx: Context
    ) -> np.ndarray:  # no embedding of the corpus: seconds, not minutes
        vectors = np.random.default_rng(1).normal(size=(n, 384)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    monkeypatch.setattr(retrieve, "corpus_vectors", random_vectors)
    ctx = Context(quick=True, log=lambda text: None)
    business = ctx.business_create("Smoke retrieval")
    try:
        with tenant_context(business):
            loader = retrieve.Loader(ctx, distinct=30)
            loader.prepare()
            steps = loader.grow(50)  # 30 real pieces and 20 noisy copies
            assert Piece.objects.count() == 50 and "copy_s" in steps
            assert Piece.objects.filter(search__isnull=True).count() == 0
            queries = dstc_questions(3)
            from apps.retrieval.embedding import embed_query

            vectors = {m: embed_query(m) for m, _ in queries}
            result = retrieve.measure_size(50, queries, vectors, 2, loader.generation)
        assert result["latency_ms"]["full"].n == 3 and result["latency_ms"]["full text only"].n == 3
        assert 0.0 <= result["recall_at_10"].median <= 1.0
    finally:
        ctx.cleanup()
    assert not Business.objects.filter(pk=business.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_unchanged_resync_is_hash_only() -> None:
    from apps.tenants.models import Business
    from bench.common import Context
    from bench.ingest import _site

    ctx = Context(quick=True, log=lambda text: None)
    site = _site(ctx, pages=5, resyncs=1)
    assert site["first_crawl_status"] == "done"
    assert site["resync_outcomes"] == {"unchanged": 5}  # the pages (the footer is read with the start page)
    assert site["re_extracted_versions"] == [0] and site["facts_after"] == site["facts"]
    assert not ctx.created and not Business.objects.filter(slug__startswith="bench-").exists()
