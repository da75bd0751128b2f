"""A book's life: ingested, changed, ingested again, renamed, deleted, its job retried.

After every step what is in the database must be what a curator would expect from the
book as it now is: every mention points into a chunk of its own book at the words it
names, no entity only an old version named is left behind, nothing another book still
names is lost."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.db.models import F
from django.utils import timezone

from books.models import Book, Chunk, IngestJob, Mention
from books.services import (
    book_delete,
    book_ingest,
    book_resolve,
    ingest_job_create,
    ingest_job_retry,
    ingest_job_run,
)
from entities.models import Entity
from kgsite.errors import Conflict, InvalidInput, NotFound

pytestmark = pytest.mark.django_db

VERSIONS = {
    "box": b"# Kites\n\n## Box kite\n\nThe Box kite flies in strong wind.\n",
    "delta": b"# Kites\n\n## Delta kite\n\nThe Delta kite flies in light wind.\n",
    "both": (
        b"# Kites\n\n## Box kite\n\nThe Box kite flies in strong wind.\n\n"
        b"## Delta kite\n\nThe Delta kite flies in light wind.\n"
    ),
    "crlf": (
        b"# Kites\r\n\r\n## Box kite\r\n\r\nThe Box kite flies in strong wind.\r\n\r\n"
        b"## Delta kite\r\n\r\nThe Delta kite flies in light wind.\r\n"
    ),
}
OTHER = b"# Spools\n\n## Reel\n\nA Reel keeps the line of the Box kite.\n"


def ingest(version: str, title: str = "Kites", **kwargs):
    return book_ingest(
        data=VERSIONS[version], filename="kites.md", title=title, embed=False, **kwargs
    )


def names() -> set[str]:
    return set(Entity.objects.values_list("canonical_name", flat=True))


def assert_consistent() -> None:
    """Every mention names words of a chunk of its own book; every chunk count is true."""
    for mention in Mention.objects.select_related("chunk"):
        chunk = mention.chunk
        assert chunk.book_id == mention.book_id
        assert chunk.start <= mention.start <= mention.end <= chunk.end
        assert chunk.text[mention.start - chunk.start : mention.end - chunk.start] == (
            mention.surface
        )
    for book in Book.objects.all():
        assert Chunk.objects.filter(book=book).count() == book.chunk_count
        ordinals = list(Chunk.objects.filter(book=book).values_list("ordinal", flat=True))
        assert sorted(ordinals) == list(range(len(ordinals)))
    assert not Mention.objects.exclude(book_id=F("chunk__book_id")).exists()


@pytest.mark.parametrize(
    "steps",
    [
        ["box", "delta"],
        ["box", "both", "delta"],
        ["delta", "both", "box"],
        ["both", "crlf"],
        ["box", "delta", "box"],
    ],
    ids="-".join,
)
def test_each_version_leaves_what_the_last_alone_would_have_left(steps):
    for step in steps:
        result = ingest(step)
        assert_consistent()
    assert result.action == "replaced" and Book.objects.count() == 1
    after = (names(), set(Mention.objects.values_list("surface", "mention_type")))
    book_delete(book=result.book)
    assert not Entity.objects.exists() and not Mention.objects.exists()
    ingest(steps[-1])
    assert (names(), set(Mention.objects.values_list("surface", "mention_type"))) == after


def test_the_same_bytes_under_the_same_title_written_otherwise_are_unchanged():
    first = ingest("both", title="Kite Manual")
    again = ingest("both", title="  kite   MANUAL ")
    assert again.action == "unchanged" and again.book.pk == first.book.pk
    assert Book.objects.get().title == "Kite Manual"


def test_crlf_and_lf_versions_differ_in_bytes_but_not_in_what_is_stored():
    ingest("both")
    lf = list(Chunk.objects.order_by("ordinal").values_list("text", "heading_path"))
    result = ingest("crlf")
    assert result.action == "replaced"  # another file: read again
    assert list(Chunk.objects.order_by("ordinal").values_list("text", "heading_path")) == lf
    assert "\r" not in "".join(text for text, _path in lf)


def test_a_second_title_is_a_second_book_and_deleting_one_keeps_the_shared_entities():
    ingest("both", title="Kites")
    shared = names()
    ingest("both", title="Kites, second printing")
    assert Book.objects.count() == 2 and names() == shared and shared
    summary = book_delete(book=Book.objects.get(title="Kites"))
    assert summary["entities_removed"] == 0 and summary["entities_kept"] == len(shared)
    assert names() == shared
    assert_consistent()
    book_delete(book=Book.objects.get())
    assert names() == set() and not Mention.objects.exists() and not Chunk.objects.exists()


def test_an_entity_another_book_mentions_survives_the_version_that_dropped_it():
    ingest("box")
    book_ingest(data=OTHER, filename="spools.md", embed=False)
    ingest("delta")
    assert "Box kite" in names()  # "Spools" still mentions it
    box = Entity.objects.get(canonical_name="Box kite")
    assert set(Mention.objects.filter(entity=box).values_list("book__title", flat=True)) == {
        "spools"
    }
    assert_consistent()


def test_a_failed_reingest_leaves_the_previous_version_readable():
    first = ingest("both")
    before = names()
    chunks = list(Chunk.objects.values_list("pk", flat=True))
    with pytest.raises(InvalidInput):
        book_ingest(data=b"   \n", filename="kites.md", title="Kites", embed=False)
    book = Book.objects.get()
    assert book.status == Book.Status.READY and book.pk == first.book.pk
    assert list(Chunk.objects.values_list("pk", flat=True)) == chunks
    assert names() == before


# --- jobs ----------------------------------------------------------------------------------


def test_deleting_the_book_of_a_done_job_keeps_the_job_and_its_result():
    job = ingest_job_create(filename="kites.md", data=VERSIONS["both"], title="Kites")
    job = ingest_job_run(job_id=job.pk)
    assert job.status == IngestJob.Status.DONE and job.book is not None
    book_delete(book=job.book)
    job.refresh_from_db()
    assert job.book is None and job.status == IngestJob.Status.DONE
    assert job.result["chunks"] >= 2
    with pytest.raises(Conflict) as caught:
        ingest_job_retry(job=job)
    assert caught.value.code == "not_failed"


def test_a_book_deleted_while_its_new_version_is_queued_comes_back_whole():
    """The curator deletes the old version; the queued upload of the new one still runs
    and brings the book back as uploaded, with nothing of the deleted version."""
    ingest("box")
    job = ingest_job_create(filename="kites.md", data=VERSIONS["delta"], title="Kites")
    book_delete(book=Book.objects.get())
    assert not Book.objects.exists() and names() == set()
    job = ingest_job_run(job_id=job.pk)
    assert job.status == IngestJob.Status.DONE
    assert Book.objects.get().title == "Kites" and names() == {"Delta kite"}
    assert_consistent()


@pytest.mark.django_db(transaction=True)  # the foreign key is checked as a worker commits
def test_a_book_deleted_while_its_job_embeds_it_stays_deleted_and_the_job_ends(
    monkeypatch, settings, tmp_path
):
    """The job's last write named the deleted book: a foreign-key error left the job
    "running", and the recovery queued it again, which brought the book back."""
    from books.services import jobs

    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(jobs, "_enqueue", lambda job_id: None)  # run here, not queued
    job = ingest_job_create(filename="kites.md", data=VERSIONS["both"], title="Kites")

    def delete_while_embedding(phase: str, done: int, total: int) -> None:
        if phase == "embed" and Book.objects.exists():
            book_delete(book=Book.objects.get())

    job = ingest_job_run(job_id=job.pk, progress=delete_while_embedding)
    assert job.status == IngestJob.Status.DONE and job.book is None
    assert not Book.objects.exists() and not Chunk.objects.exists() and names() == set()


@pytest.mark.django_db(transaction=True)  # the foreign keys are checked as a worker commits
def test_entities_merged_or_deleted_while_a_book_is_read_leave_it_whole(
    monkeypatch, settings, tmp_path, curator
):
    """Extraction found stored entities; a curator merged one and deleted another before
    the book was written: the write failed on its foreign keys ("IntegrityError") and
    the book was not stored. Its mentions now follow the merge; the deleted one's go."""
    from books.services import jobs
    from entities.services import entity_delete, entity_merge, entity_store

    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(jobs, "_enqueue", lambda job_id: None)  # run here, not queued
    old = entity_store(name="Box kite", type="kite")[0]
    survivor = entity_store(name="Box kites", type="kite")[0]
    gone = entity_store(name="Delta kite", type="kite")[0]
    job = ingest_job_create(filename="kites.md", data=VERSIONS["both"], title="Kites")

    def curate_meanwhile(phase: str, done: int, total: int) -> None:
        if phase == "write" and Entity.objects.filter(pk=gone.pk).exists():
            entity_merge(
                survivor=survivor, duplicates=[Entity.objects.get(pk=old.pk)], actor=curator
            )
            entity_delete(entity=Entity.objects.get(pk=gone.pk), actor=curator)

    job = ingest_job_run(job_id=job.pk, progress=curate_meanwhile)
    assert job.status == IngestJob.Status.DONE, job.error
    named = set(Mention.objects.values_list("entity_id", flat=True))
    assert survivor.pk in named and old.pk not in named and gone.pk not in named
    assert_consistent()


def test_a_job_runs_once_even_when_delivered_twice():
    job = ingest_job_create(filename="kites.md", data=VERSIONS["both"], title="Kites")
    ingest_job_run(job_id=job.pk)
    again = ingest_job_run(job_id=job.pk)
    assert again.status == IngestJob.Status.DONE and again.attempts == 1
    assert Book.objects.count() == 1 and Chunk.objects.count() == Book.objects.get().chunk_count


def test_two_uploads_of_the_same_bytes_share_one_kept_file():
    first = ingest_job_create(filename="kites.md", data=VERSIONS["box"])
    second = ingest_job_create(filename="KITES.MD", data=VERSIONS["box"], title="Kites again")
    assert first.source_path == second.source_path and Path(first.source_path).is_file()
    assert (first.title, second.title) == ("kites", "Kites again")


def test_a_failed_job_whose_file_is_gone_cannot_be_retried(tmp_path):
    path = tmp_path / "kites.md"
    path.write_bytes(VERSIONS["box"])
    job = ingest_job_create(filename="", path=path)
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJob.Status.FAILED, error="disk")
    path.unlink()
    job.refresh_from_db()
    with pytest.raises(Conflict) as caught:
        ingest_job_retry(job=job)
    assert caught.value.code == "source_missing" and "upload it again" in caught.value.message
    job.refresh_from_db()
    assert job.status == IngestJob.Status.FAILED and job.error == "disk"


def test_a_retried_job_that_fails_again_rings_the_bell_again(monkeypatch):
    """Retrying closes the failure notice; a second failure found it closed and said
    nothing, so a curator who retried and walked away never heard of it."""
    from books.extraction import offline
    from notifications.models import Notification

    crashes = iter(["first crash", "second crash"])

    def crash(self, chunks, *, lexicon, progress=None):
        raise RuntimeError(next(crashes))

    monkeypatch.setattr(offline.OfflineExtractor, "extract", crash)
    job = ingest_job_create(filename="kites.md", data=VERSIONS["box"], extractor="offline")
    with pytest.raises(RuntimeError):
        ingest_job_run(job_id=job.pk)
    notice = Notification.objects.get(type="job_failed")
    assert notice.read is False
    ingest_job_retry(job=IngestJob.objects.get(pk=job.pk))
    notice.refresh_from_db()
    assert notice.read is True
    with pytest.raises(RuntimeError):
        ingest_job_run(job_id=job.pk)
    notice = Notification.objects.get(type="job_failed")
    assert notice.read is False and "second crash" in notice.payload["error"]


# --- finding a book --------------------------------------------------------------------------


def test_a_book_is_found_by_id_or_by_its_title_in_any_case():
    book = ingest("box", title="Kite Manual").book
    assert book_resolve(title_or_id=str(book.pk)) == book
    assert book_resolve(title_or_id="  KITE manual ") == book
    with pytest.raises(NotFound) as caught:
        book_resolve(title_or_id="Kite Manua")
    assert caught.value.field == "book" and "'Kite Manua'" in caught.value.message
    with pytest.raises(InvalidInput):
        book_resolve(title_or_id="   ")


def test_a_title_that_reads_as_a_number_is_never_taken_for_another_books_id():
    """Files named 01.md, 02.md make books titled "01" and "02": "02" named book 2,
    which was "01", and deleting it removed the wrong book."""
    intro = ingest("box", title="Kite Manual").book
    first = ingest("delta", title="01").book
    second = ingest("both", title="02").book
    assert [intro.pk + 1, intro.pk + 2] == [first.pk, second.pk]
    assert book_resolve(title_or_id="02") == second  # not book 2 (titled "01")
    assert book_resolve(title_or_id=str(intro.pk)) == intro
    number = ingest("crlf", title=str(first.pk)).book
    with pytest.raises(Conflict) as caught:
        book_resolve(title_or_id=str(first.pk))
    assert caught.value.field == "book"
    assert f"the id {number.pk}" in caught.value.message and "'01'" in caught.value.message
    assert Book.objects.filter(pk__in=[intro.pk, first.pk, second.pk, number.pk]).count() == 4


@pytest.mark.parametrize(
    ("title", "says"),
    [
        ("\u200b", "title must not be empty"),
        ("\u200b \u2060\u00a0", "title must not be empty"),
        ("Kites\x00", "control characters"),
        ("Kites\x1b[31m", "control characters"),
        ("x" * 513, "longer than 512"),
    ],
    ids=["invisible", "invisible-and-spaces", "nul", "escape", "long"],
)
def test_a_bad_title_is_refused_before_anything_is_stored(title, says):
    with pytest.raises(InvalidInput) as caught:
        ingest_job_create(filename="kites.md", data=VERSIONS["box"], title=title)
    assert caught.value.field == "title" and says in caught.value.message
    assert not IngestJob.objects.exists() and not Book.objects.exists()


def test_an_ingest_stopped_with_ctrl_c_is_no_job_left_running(monkeypatch):
    """`ingest_book --sync` stopped with Ctrl-C left its job 'running' for ever on the
    jobs page; with a cluster, the recovery then handed it to a worker, which ingested
    the book the operator had stopped."""
    from books.extraction.offline import OfflineExtractor
    from books.services import book_ingest_now, ingest_jobs_recover

    def interrupted(self, chunks, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(OfflineExtractor, "extract", interrupted)
    with pytest.raises(KeyboardInterrupt):
        book_ingest_now(data=VERSIONS["both"], filename="kites.md", extractor="offline")
    job = IngestJob.objects.get()
    assert job.status == "failed" and "interrupted (KeyboardInterrupt)" in job.error
    silent = timezone.now() - timedelta(days=1)  # as a killed run's row after a lease
    IngestJob.objects.filter(pk=job.pk).update(updated_at=silent)
    assert ingest_jobs_recover() == [] and not Book.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_long_sync_ingest_is_not_taken_for_a_dead_worker(monkeypatch, settings):
    """A phase that reports nothing for a lease (NER over a long book) left the --sync
    run's job silent: the recovery queued it again and a worker ingested the same book
    alongside the command."""
    import time

    from books.extraction.offline import OfflineExtractor
    from books.services import book_ingest_now, ingest_jobs_recover

    settings.KGSITE_JOB_LEASE_SECONDS = 2
    real = OfflineExtractor.extract
    recovered = []

    def slow(self, chunks, **kwargs):
        time.sleep(3)  # longer than a lease, without a word of progress
        recovered.extend(ingest_jobs_recover())
        return real(self, chunks, **kwargs)

    monkeypatch.setattr(OfflineExtractor, "extract", slow)
    job, _result = book_ingest_now(
        data=VERSIONS["both"], filename="kites.md", extractor="offline", embed=False
    )
    assert recovered == []
    job.refresh_from_db()
    assert job.status == "done" and job.attempts == 0


def test_a_sync_run_killed_outright_is_resumed_from_its_file(tmp_path, monkeypatch, settings):
    """A --sync run given a relative path, then killed (out of memory): the recovery
    handed its job to a worker, which looked for the path from its own folder and
    failed with 'No such file'."""
    from books.services import book_ingest_now, ingest_jobs_recover

    (tmp_path / "kites.md").write_bytes(VERSIONS["both"])
    monkeypatch.chdir(tmp_path)
    job, _result = book_ingest_now(path="kites.md", extractor="offline", embed=False)
    dead = timezone.now() - timedelta(seconds=settings.KGSITE_JOB_LEASE_SECONDS + 1)
    IngestJob.objects.filter(pk=job.pk).update(status="running", updated_at=dead)
    monkeypatch.chdir(tmp_path.parent)  # the worker's own folder
    assert ingest_jobs_recover() == [job.pk]
    job.refresh_from_db()
    assert job.status == "done", job.error


def test_a_book_ingested_fine_closes_the_notices_of_its_earlier_failures():
    """A version failed (its notice in the bell), the curator uploaded it again fixed and
    it went in: the bell still said 'Ingesting Kites failed' until marked read by hand."""
    from books.services import book_ingest_now
    from books.services.jobs import _notify_failure
    from notifications.models import Notification

    kites = IngestJob.objects.create(title="Kites", source_name="kites.md", status="failed")
    reels = IngestJob.objects.create(title="Reels", source_name="reels.md", status="failed")
    _notify_failure(kites, "ValueError: bad table")
    _notify_failure(reels, "ValueError: bad table")
    book_ingest_now(data=VERSIONS["both"], filename="kites.md", extractor="offline", embed=False)
    unread = Notification.objects.filter(type="job_failed", read=False)
    assert [n.payload["job_id"] for n in unread] == [reels.pk]
