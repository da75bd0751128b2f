"""Technical documents end to end: defines, types, candidates and no pollution.

The documents are written for these tests; none comes from an evaluation file.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from books.models import Book, Mention
from books.services import book_ingest
from entities.models import Alias, Entity
from entities.services import entity_update

pytestmark = pytest.mark.django_db

REFERENCE = """\
# Ropes

The `acme:ropes` module ties knots in strings of text.

## Class: `ropes.Knot`

A knot remembers where it was tied.

## `ropes.tie(text[, style], done)`

* `text` {string}
* `style` {string}
* `done` {Function}

Ties a knot. The Knot Description Language (KDL) describes each knot; see
`ropes.untie()`.

## `ropes.untie(knot)`

Unties a knot tied by `ropes.tie()`. A KDL file may also be read.

### Supported knot styles

* `ropes.BOWLINE`: a fixed loop.
* `ropes.HITCH`: binds to a post.
"""

MANUAL = """\
Lantern manual
==============

Usage
-----

 * "lantern light" starts the flame and "lantern dim" lowers it.
 * "lantern trim" cuts the wick; "lantern light --bright" is brighter.
 * Usage: lantern light NAME VALUE, where NAME names the lamp and VALUE its level.

Notes
-----

The document describes version 2. Set lantern.wickLength in the config.
Store logs under /var/log/kdl/ and read http://example.test/KDL/spec for more.
"""


def ingest(name: str, text: str):
    return book_ingest(data=text.encode(), filename=name, extractor="offline")


def entity(name: str) -> Entity:
    return Entity.objects.get(name_norm=name.casefold())


def defining_heading(entity_obj: Entity) -> str:
    mention = Mention.objects.get(entity=entity_obj, mention_type="defines")
    return mention.chunk.heading_path[-1]


def test_code_headings_and_entries_define_what_they_name_with_types():
    ingest("ropes.md", REFERENCE)
    tie = entity("ropes.tie()")
    assert tie.type == "function"
    assert defining_heading(tie) == "`ropes.tie(text[, style], done)`"
    knot = entity("ropes.Knot")
    assert knot.type == "class"
    assert defining_heading(knot) == "Class: `ropes.Knot`"
    assert defining_heading(entity("ropes.BOWLINE")) == "Supported knot styles"
    assert defining_heading(entity("acme:ropes")) == "Ropes"
    assert entity("acme:ropes").type == "library"


def test_an_acronym_and_its_expansion_are_one_entity():
    ingest("ropes.md", REFERENCE)
    kdl = entity("KDL")
    assert kdl.type == "concept" or kdl.type == "standard"
    assert Alias.objects.filter(entity=kdl, alias="Knot Description Language").exists()
    assert not Entity.objects.filter(name_norm="knot description language").exists()
    assert defining_heading(kdl) == "`ropes.tie(text[, style], done)`"


def test_the_bare_name_of_a_call_finds_the_function():
    ingest("ropes.md", REFERENCE)
    tie = entity("ropes.tie()")
    assert Alias.objects.filter(entity=tie, alias="ropes.tie").exists()
    # "`ropes.tie()`" under the untie heading is a reference to the same entity.
    untie_chunk = Mention.objects.get(entity=entity("ropes.untie()"), mention_type="defines").chunk
    assert Mention.objects.filter(entity=tie, chunk=untie_chunk, mention_type="references")


def test_parameters_and_placeholders_do_not_become_entities():
    ingest("ropes.md", REFERENCE)
    ingest("lantern.txt", MANUAL)
    names = set(Entity.objects.values_list("name_norm", flat=True))
    assert not {"text", "style", "done", "name", "value", "document", "usage"} & names


def test_extraction_creates_candidates_with_their_evidence():
    ingest("lantern.txt", MANUAL)
    light = entity("lantern light")
    assert light.type == "command"
    assert light.candidate is True and light.evidence >= 2
    assert entity("lantern.wickLength").type == "option"


def test_candidate_acronyms_match_only_in_capitals_and_never_in_paths_or_urls():
    ingest("ropes.md", REFERENCE)
    kdl = entity("KDL")
    assert kdl.candidate
    ingest("lantern.txt", MANUAL)  # "kdl" only in a path and a URL there
    lantern = Book.objects.get(title="lantern")
    assert not Mention.objects.filter(entity=kdl, book=lantern).exists()
    ingest("other.md", "# Other\n\nA KDL file, unlike a kdl_file variable, is plain text.\n")
    other = Book.objects.get(title="other")
    mention = Mention.objects.get(entity=kdl, book=other)
    assert mention.surface == "KDL"


def test_curated_entities_keep_case_insensitive_matching():
    ingest("ropes.md", REFERENCE)
    kdl = entity("KDL")
    entity_update(entity=kdl, actor=None, description="a knot language")
    kdl.refresh_from_db()
    assert kdl.candidate is False  # a curator's edit confirms it
    ingest("third.md", "# Third\n\nThe kdl grammar is short.\n")
    assert Mention.objects.filter(entity=kdl, book__title="third", surface="kdl").exists()


def test_a_candidate_proposed_again_by_another_book_is_confirmed():
    ingest("lantern.txt", MANUAL)
    assert entity("lantern light").candidate
    ingest(
        "lantern-faq.txt",
        'Lantern FAQ\n===========\n\nHow?\n----\n\n * "lantern light" lights it.\n'
        ' * "lantern dim" and "lantern trim" too; "lantern light" again.\n',
    )
    assert entity("lantern light").candidate is False


def run(*args) -> str:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_ingest_book_takes_directories_and_globs_and_skips_other_files(tmp_path):
    shelf = tmp_path / "shelf"
    (shelf / "deep").mkdir(parents=True)
    (shelf / "ropes.md").write_text(REFERENCE)
    (shelf / "deep" / "lantern.txt").write_text(MANUAL)
    (shelf / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    output = run("ingest_book", str(shelf), "--sync")
    assert "skipped" in output and "picture.png" in output
    assert sorted(Book.objects.values_list("title", flat=True)) == ["lantern", "ropes"]
    again = run("ingest_book", str(shelf / "**" / "*.txt"), "--sync")
    assert again.count("unchanged") == 1


def test_ingest_book_refuses_title_for_several_files_and_missing_paths(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nAlpha.\n")
    (tmp_path / "b.md").write_text("# B\n\nBeta.\n")
    with pytest.raises(CommandError, match="single file"):
        run("ingest_book", str(tmp_path / "a.md"), str(tmp_path / "b.md"), "--title", "X")
    with pytest.raises(CommandError, match="No such file or directory"):
        run("ingest_book", str(tmp_path / "nowhere"), "--sync")
    assert not Book.objects.exists()


def test_ingest_book_refuses_a_binary_file_renamed_txt_with_one_line(tmp_path):
    fake = tmp_path / "tool.txt"
    fake.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    with pytest.raises(CommandError) as caught:
        run("ingest_book", str(fake), "--sync")
    assert "ELF executable" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not Book.objects.exists()


def test_one_bad_file_among_several_does_not_stop_the_others(tmp_path):
    (tmp_path / "good.md").write_text("# Good\n\nFine text.\n")
    (tmp_path / "bad.txt").write_bytes(b"text\x00\x00binary")
    with pytest.raises(CommandError, match="1 of 2 files"):
        run("ingest_book", str(tmp_path), "--sync")
    assert list(Book.objects.values_list("title", flat=True)) == ["good"]


def test_eval_extraction_scores_a_gold_file(tmp_path):
    (tmp_path / "ropes.md").write_text(REFERENCE)
    (tmp_path / "gold.tsv").write_text(
        "doc\tkind\tnames\ttype\tdefining_heading\n"
        "ropes.md\tkey\tropes.tie()|ropes.tie\tfunction\t`ropes.tie(text[, style], done)`\n"
        "ropes.md\tkey\tKDL|Knot Description Language\tstandard\t-\n"
        "ropes.md\tkey\tropes.Braid\tclass\t-\n"
        "ropes.md\tjunk\tdone\t-\t-\n"
    )
    out = StringIO()
    call_command("eval_extraction", str(tmp_path / "gold.tsv"), "--no-scratch", stdout=out)
    text = out.getvalue()
    overall = next(line for line in text.splitlines() if line.startswith("overall"))
    keys, recall, *_ = overall.split()[1:]
    assert (keys, recall) == ("3", "0.67")
    assert "missed   ropes.Braid (class)" in text


def test_upload_accepts_html_and_refuses_binary_text(
    curator_api, django_capture_on_commit_callbacks
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    page = b"<html><body><h1>Kettle</h1><p>The <code>kettle_boil()</code> call.</p></body></html>"
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_api.post(
            "/api/v1/books/", {"file": SimpleUploadedFile("kettle.html", page)}, format="multipart"
        )
    assert response.status_code == 202
    assert Book.objects.get().format == "html"
    binary = SimpleUploadedFile("notes.txt", b"\x7fELF\x02\x01\x01\x00" + bytes(64))
    response = curator_api.post("/api/v1/books/", {"file": binary}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "file"
    assert "ELF" in response.json()["error"]["message"]
