"""Running a management command as an operator would, for the tests of its answers."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def command_fails(*args: str) -> str:
    """The command's refusal: one readable line (no traceback), returned for the test to
    read further."""
    with pytest.raises(CommandError) as caught:
        call_command(*args, stdout=StringIO(), stderr=StringIO())
    message = str(caught.value)
    assert message.strip() and "\n" not in message and "Traceback" not in message, message
    return message
