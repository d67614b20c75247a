"""How a scenario question is graded per column (lab.scenario.grade): only the reply can refuse."""

from __future__ import annotations

from lab.scenario import ColumnText, ScenarioQuestion, grade

UNANSWERABLE = ScenarioQuestion(
    ask="Do you sell hot tubs?", unanswerable=True, forbid=[r"(?i)hot tubs? (are|is) \$"]
)
ANSWERABLE = ScenarioQuestion(ask="How much is a lawn mower service?", require=[r"\$79"])


def test_fact_lines_of_an_unanswerable_question_pass_unless_they_state_what_is_forbidden() -> None:
    # Before: every knowledge column of an unanswerable question failed ("a refusal" was required of
    # fact lines, which never refuse).
    assert grade("Mower service: A mower service is $79.", UNANSWERABLE).passed
    assert not grade("Hot tubs: Hot tubs are $4,999.", UNANSWERABLE).passed


def test_the_reply_to_an_unanswerable_question_must_refuse() -> None:
    assert grade(ColumnText("I've passed your question on.", refusal=True), UNANSWERABLE).passed
    assert not grade(ColumnText("Yes, we sell hot tubs."), UNANSWERABLE).passed


def test_an_answerable_question_is_graded_on_its_patterns_and_a_refusal_fails_it() -> None:
    assert grade("Mower service: A mower service is $79.", ANSWERABLE).passed
    assert not grade("Mower service: ask us.", ANSWERABLE).passed
    assert not grade(ColumnText("A mower service is $79. Passed on.", refusal=True), ANSWERABLE).passed
