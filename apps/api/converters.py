"""Ids in API paths: digits only, short enough for a bigint (a longer number is a 404, not a 500)."""

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

# How the schema describes it (SPECTACULAR_SETTINGS["PATH_CONVERTER_OVERRIDES"]).
ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": 999_999_999_999_999_999}
