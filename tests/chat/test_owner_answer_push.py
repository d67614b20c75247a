"""A visitor whose widget is connected sees the owner's answer to their question at once (pushed
through the channel layer), not only the next time they open the widget. Across processes on Redis:
tests/deployment/test_multiprocess.py."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from apps.gaps.models import GapTicket
from apps.gaps.services import gap_answer
from apps.tenants.context import call_in_schema
from tests.chat.test_consumer_and_api import ORIGINS, _fresh_limits, shops  # noqa: F401 - fixtures
from tests.helpers import run_async
from xorventa.asgi import application


def _answer_the_only_gap(answer: str) -> None:
    gap_answer(ticket=GapTicket.objects.get(), answer=answer, actor="owner@sunny.example")


@pytest.mark.django_db(transaction=True)
def test_a_connected_visitor_receives_the_owners_answer_at_once(shops):  # noqa: F811
    business = shops["sunny"]

    async def scenario() -> tuple[dict, dict, list[dict]]:
        headers = [(b"origin", ORIGINS["sunny"].encode()), (b"host", b"localhost")]
        asker = WebsocketCommunicator(
            application, f"/ws/chat/{business.public_key}/?visitor=asker-0001", headers
        )
        other = WebsocketCommunicator(
            application, f"/ws/chat/{business.public_key}/?visitor=other-0001", headers
        )
        for communicator in (asker, other):
            assert (await communicator.connect(timeout=30))[0]
            assert (await communicator.receive_json_from(timeout=30))["type"] == "hello"
        await asker.send_json_to({"type": "message", "text": "Do you deliver wedding cakes to Bath?"})
        while (end := await asker.receive_json_from(timeout=60))["type"] != "end":
            pass
        await call_in_schema(business.schema_name, _answer_the_only_gap, "Yes, to Bath for $15.")
        pushed = await asker.receive_json_from(timeout=10)
        others: list[dict] = []
        while not await other.receive_nothing(timeout=0.5):  # the other visitor asked nothing: hears nothing
            others.append(await other.receive_json_from())
        for communicator in (asker, other):
            await communicator.disconnect()
        return end, pushed, others

    end, pushed, others = run_async(scenario())
    assert end["decision"] == "unknown"
    assert pushed["type"] == "person" and pushed["message"]["role"] == "owner"
    assert "Yes, to Bath for $15." in pushed["message"]["text"]
    assert others == []
