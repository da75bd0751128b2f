"""Request parsers that answer 400, never 500, for hostile JSON."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser as DRFJSONParser


class JSONParser(DRFJSONParser):
    """DRF's parser, plus a 400 for a document nested deeper than Python recurses
    (``[[[[...]]]]`` 100,000 deep raised RecursionError, a 500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the document is nested too deeply") from None
