"""A refusal kept on a row (a failed job's) says itself later in a page's language: a
``Wording`` stores its template and params as JSON, nested wordings too, and comes back
the same English sentence."""

from __future__ import annotations

import json

from django.utils import translation
from django.utils.translation import gettext_noop

from kgsite.errors import InvalidInput, Wording, in_page_language


def test_a_stored_wording_comes_back_the_same_sentence_in_either_language():
    kind = Wording(gettext_noop("an ELF executable"))
    template = gettext_noop("The file is %(kind)s, not text: nothing ingested.")
    said = Wording(template, {"kind": kind})
    back = Wording.restored(json.loads(json.dumps(said.stored())))
    assert back == said == "The file is an ELF executable, not text: nothing ingested."
    with translation.override("it"):
        assert in_page_language(back) == (
            "Il file è un eseguibile ELF, non testo: non è stato acquisito niente."
        )


def test_a_wording_without_params_keeps_its_percent_signs():
    text = Wording("100% of the file is binary")
    assert Wording.restored(text.stored()) == "100% of the file is binary"


def test_a_domain_errors_wording_is_its_message_with_its_template():
    template = gettext_noop("%(field)s is longer than %(n)s characters")
    exc = InvalidInput(template, params={"field": "name", "n": 512})
    assert exc.wording == exc.message == "name is longer than 512 characters"
    with translation.override("it"):
        assert in_page_language(Wording.restored(exc.wording.stored())) == exc.translated
        assert exc.translated == "name supera i 512 caratteri"
