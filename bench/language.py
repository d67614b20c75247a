"""language: what the language layer (apps/language) costs on this CPU, on one thread.

    python -m bench.language [--questions 200] [--json]

- load: a fresh process imports spaCy, verifies the model files' sha256 and loads the pipeline;
- question: ``analyse()`` of 200 distinct questions (varied trades, wordings, dates, typos), cache
  cleared, p50/p95; and its parts (the spaCy parse alone, with and without the entity recogniser);
- source: ``analyse(entities=True)`` of a 3,000-character page;
- speller: building one business's speller, and ``correct()`` per question.

The question budget of issue 17 is 5 ms p95 for the analysis. Machines here differ and are shared:
read the figures as a ratio to each other, and rerun on a quiet machine before quoting them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

_LOAD_SCRIPT = r"""
import json, resource, time
t0 = time.perf_counter()
import spacy  # noqa: F401
t1 = time.perf_counter()
from apps.language import pipeline
folder = pipeline.model_dir()
pipeline.verify_model(folder)
t2 = time.perf_counter()
pipeline.nlp()
t3 = time.perf_counter()
pipeline.parse("Are you open next Monday?")
t4 = time.perf_counter()
from apps.language.analysis import analyse
import datetime as dt
analyse("Closed from Dec 24 to Jan 2, call (202) 555-0143; cuts from $30.", base_date=dt.date(2026, 12, 1))
t5 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "verify_s": t2 - t1, "load_s": t3 - t2, "first_parse_s": t4 - t3,
                  "first_analysis_s": t5 - t4, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_TRADES = [
    ("dentist", "a check-up", "the hygienist", "Delta Dental"),
    ("bike shop", "a puncture repair", "the workshop", "gravel bikes"),
    ("pizzeria", "a large margherita", "the kitchen", "gluten-free bases"),
    ("pet groomer", "a full groom", "the salon", "nail trims"),
    ("driving school", "a motorway lesson", "the instructor", "automatic cars"),
    ("car garage", "an MOT", "the service bay", "courtesy cars"),
    ("bakery", "the sourdough", "the shop", "rye loaves"),
    ("yoga studio", "a drop-in class", "the studio", "class packs"),
    ("florist", "a bouquet", "the van", "same-day delivery"),
    ("vet", "a vaccination", "the surgery", "exotic pets"),
]
_TEMPLATES = [
    "How much is {item}?",
    "Are you open next Monday?",
    "do u do {extra}",
    "Can I book {item} for this Saturday?",
    "What time does {place} close on December 29?",
    "and on saturdays?",
    "Is {place} closed from Dec 24 to Jan 2?",
    "Do you accept {brand} at the {trade}?",
    "how much is {item} per hour",
    "Don't you offer {extra} any more?",
    "Could I ring {place} on (202) 555-0143 tomorrow?",
    "Is {item} cheaper in July?",
    "whats the price of {item} with {extra}",
    "Do you have parking near {place}",
    "When can I get {item} next week?",
    "is {item} from $49 still on",
    "Are dogs allowed in {place}?",
    "How many people fit in {place}?",
    "my {trade} apointment is at 3, can I come at 4 instead?",
    "Who do I talk to about {extra}?",
]

_PAGE = (
    "Welcome to Riverside Cycles, the friendly bike shop on Mill Lane since 2009. We sell road, gravel "
    "and e-bikes from leading brands, and our workshop repairs every kind of bike. Opening hours: "
    "Monday to Friday 8:30 to 6, Saturday 9 to 5, closed on Sundays and bank holidays. The workshop is "
    "closed March 3-7 for a refit; the shop stays open. Over Christmas we close from Dec 24 to Jan 2.\n"
    "Workshop prices: puncture repair $15, basic service $65, full service from $149, wheel truing "
    "$25 each, labour $45 per hour. Inner tubes are $8 or 3 for $20. Bike hire $30 a day, helmets "
    "included. We no longer offer free delivery; delivery within 10 miles is $12.\n"
    "Call the workshop on (202) 555-0143 or email hello@riverside.example. Trade-ins are welcome: "
    "bring your old bike and we'll value it on the spot. Gift vouchers never expire and can be used "
    "online or in store. Students get 10% off servicing with a valid card, Tuesday to Thursday only. "
    "Group rides leave the shop every Sunday at 8am in summer; in winter they start at 9. Booking is "
    "not required, but please arrive ten minutes early so we can check your tyres and brakes. Our "
    "mechanics are Cytech qualified, and we stock parts for Shimano, SRAM and Campagnolo groupsets. "
    "Kids' bikes start at $189; balance bikes from $79. Finance is available on bikes over $500 with "
    "12 months at 0%. Returns are accepted within 30 days with a receipt, unused and in the original "
    "packaging. We can't accept returns on custom wheel builds. Parking is free behind the shop, and "
    "the number 7 bus stops outside. From April 1 we will open late on Thursdays until 8pm. "
)


def questions(count: int) -> list[str]:
    """``count`` distinct questions: every template with every trade, then numbered variants."""
    out: list[str] = []
    for template, (trade, item, place, extra) in itertools.product(_TEMPLATES, _TRADES):
        text = template.format(trade=trade, item=item, place=place, extra=extra, brand=extra)
        if text not in out:
            out.append(text)
    base = list(out)
    n = 2
    while len(out) < count:
        out.extend(f"{q} ({n})" for q in base)
        n += 1
    return out[:count]


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _timed(function: Callable[[str], Any], texts: list[str]) -> dict[str, float]:
    """Wall time and this thread's CPU time per call. On a shared machine the wall time includes
    waiting for a core; the CPU time is what the call itself costs."""
    wall, cpu = [], []
    for text in texts:
        start, start_cpu = time.perf_counter(), time.thread_time()
        function(text)
        wall.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    return {
        "n": len(texts),
        "p50_ms": _percentile(wall, 0.50),
        "p95_ms": _percentile(wall, 0.95),
        "cpu_p50_ms": _percentile(cpu, 0.50),
        "cpu_p95_ms": _percentile(cpu, 0.95),
    }


def measure(count: int = 200) -> dict[str, Any]:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    load = json.loads(
        subprocess.run(  # noqa: S603 - our own interpreter and script
            [sys.executable, "-c", _LOAD_SCRIPT],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        ).stdout
    )
    from apps.language import analysis, pipeline
    from apps.language.analysis import analyse
    from apps.language.dates import resolve_phrase
    from apps.language.spelling import Speller

    texts = questions(count)
    base = dt.datetime(2026, 12, 1, 10, 30, tzinfo=dt.UTC)
    analyse("warm up: next Monday, $5 each", base_date=base, tz="Europe/London")
    language = pipeline.nlp()
    results: dict[str, Any] = {"load": load}

    pipeline._cached.cache_clear()
    resolve_phrase.cache_clear()
    analysis._analysed.cache_clear()
    results["question_analysis"] = _timed(lambda t: analyse(t, base_date=base, tz="Europe/London"), texts)
    results["question_analysis_cached"] = _timed(
        lambda t: analyse(t, base_date=base, tz="Europe/London"), texts
    )
    results["parse_without_ner"] = _timed(lambda t: pipeline._run(t, False), texts)
    results["parse_with_ner"] = _timed(lambda t: pipeline._run(t, True), texts)
    results["tokenizer_only"] = _timed(language.tokenizer, texts)

    page = (_PAGE * 2)[:3000]
    pages = [f"{page} ({n})" for n in range(10)]
    results["source_3000_chars"] = _timed(
        lambda t: analyse(t, base_date=base, tz="UTC", entities=True), pages
    )
    results["source_chars"] = len(page)

    vocabulary = sorted({w.strip(".,;:()$%'").lower() for w in _PAGE.split() if w.isascii()} - {""})
    start = time.perf_counter()
    Speller(vocabulary)  # the first one also loads lemminflect's tables and the English words
    first = time.perf_counter() - start
    start = time.perf_counter()
    speller = Speller(vocabulary)
    results["speller_build"] = {
        "words": len(vocabulary),
        "first_s": first,
        "next_ms": (time.perf_counter() - start) * 1000,
    }
    results["speller_correct"] = _timed(speller.correct, texts)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    results = measure(args.questions)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    load = results.pop("load")
    print(f"load (fresh process): {', '.join(f'{k} {v:.2f}' for k, v in load.items())}")
    print(f"machine load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for name, value in results.items():
        if isinstance(value, dict) and "p50_ms" in value:
            print(
                f"{name:26} n={value['n']:<4} wall p50 {value['p50_ms']:6.2f} p95 {value['p95_ms']:6.2f} ms"
                f"   cpu p50 {value['cpu_p50_ms']:6.2f} p95 {value['cpu_p95_ms']:6.2f} ms"
            )
        else:
            print(f"{name:28} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
