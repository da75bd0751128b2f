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


# --- Turkish dotted and dotless i, and the folds casefold already gives -------------------
# Names from outside every evaluation file: Turkish places and people, Greek and German
# words, typographic ligatures.


def test_turkish_dotted_and_dotless_i_fold_together():
    assert normalize("İZMIR KIŞLA") == normalize("İzmir Kışla") == "izmir kişla"
    assert normalize("DİYARBAKIR") == normalize("Diyarbakır")
    assert normalize("ISPARTA") == normalize("Isparta") == normalize("ıSPARTA")
    # A decomposed dotted capital (I + combining dot above) is the same letter.
    assert normalize("I\u0307STANBUL") == normalize("İstanbul") == "istanbul"


def test_other_letters_keep_their_marks():
    # Only the dot of the Turkish i is folded: the cedilla and breve stay significant.
    assert normalize("Kışla") != normalize("Kisla")
    assert normalize("Ağrı") != normalize("Agri")


def test_greek_final_sigma_eszett_and_ligatures():
    assert normalize("ΟΔΥΣΣΕΥΣ") == normalize("Οδυσσευς") == normalize("Οδυσσεύς".replace("ύ", "υ"))
    assert normalize("GROSSGLOCKNER") == normalize("Großglockner")
    assert normalize("ﬁnance ﬂow") == normalize("finance flow")
