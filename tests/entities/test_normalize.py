import unicodedata

from kgsite.text import normalize


def test_case_folding_is_full_not_lower():
    assert normalize("STRASSE") == normalize("Straße")
    assert "Straße".lower() != "strasse"  # why casefold matters


def test_nfc_and_nfd_are_the_same_name():
    nfd = unicodedata.normalize("NFD", "Müller")
    assert nfd != "Müller"
    assert normalize(nfd) == normalize("Müller") == normalize("MÜLLER")


def test_whitespace_is_trimmed_and_collapsed():
    assert normalize("  Susumu \t  Tonegawa\n") == "susumu tonegawa"


def test_accents_stay_significant():
    assert normalize("Sao Paulo") != normalize("São Paulo")
    assert normalize("Schroedinger") != normalize("Schrödinger")
