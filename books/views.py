"""Books and ingest jobs: upload a book (the upload API's path), watch its job's
progress to done (HTMX polling), retry a failed job, and browse a book's chapters,
chunks and mentions."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_POST

from entities.models import Entity
from kgsite.converters import parse_id
from kgsite.errors import DomainError, InvalidInput, Wording, in_page_language
from kgsite.models import AuditEntry
from kgsite.pages import (
    Panel,
    UndoAction,
    audit_target_ids,
    checked_get,
    curator_required,
    is_curator,
    render_page,
)
from kgsite.text import type_tag
from notifications.models import Notification
from notifications.views import EVENT

from . import review, selectors, services
from .models import Book, Chunk, IngestJob, Mention
from .parsing import SUPPORTED_EXTENSIONS

RECENT_JOBS = 10
CHUNK_PAGE_SIZE = 25
ACCEPT = ",".join(SUPPORTED_EXTENSIONS)  # the file picker offers every format ingested
FINISHED = {IngestJob.Status.DONE, IngestJob.Status.FAILED}


# The phases of an ingestion in order, with the share of the whole job each takes on a
# typical book (measured on the sample books: extraction and embedding dominate), so the
# bar moves steadily through the job instead of restarting at 0 % in every phase.
PHASES = (("parse", 5), ("extract", 45), ("write", 15), ("embed", 35))
PHASE_LABELS = {
    "parse": gettext_lazy("reading the file"),
    "extract": gettext_lazy("finding entities"),
    "write": gettext_lazy("writing chunks and mentions"),
    "embed": gettext_lazy("indexing for search"),
}


def _percent(job: IngestJob) -> int:
    """The whole job's progress: the phases already done, plus this phase's share."""
    if job.status == IngestJob.Status.DONE:
        return 100
    before = 0
    for phase, share in PHASES:
        if phase == job.phase:
            within = job.done / job.total if job.total else 0
            return min(99, int(before + share * within))
        before += share
    return 0


def job_view(job: IngestJob) -> dict:
    """What a job's progress partial shows; ``live`` keeps it polling."""
    return {
        "job": job,
        "percent": _percent(job),
        "live": job.status not in FINISHED,
        "phase": PHASE_LABELS.get(job.phase, job.phase),
        "step": next((i for i, (p, _s) in enumerate(PHASES, 1) if p == job.phase), 0),
        "steps": len(PHASES),
        "unchanged": (job.result or {}).get("action") == "unchanged",
        "error": _job_error(job),
    }


def _job_error(job: IngestJob) -> str:
    """A failed job's error in the page's language, said from the wording stored with it
    (its phase as the progress line names it); an exception's own words, and the error
    of a job that failed before wordings were stored, as recorded."""
    if not job.error_wording:
        return job.error
    wording = Wording.restored(job.error_wording)
    if wording.params and "phase" in wording.params:
        phase = PHASE_LABELS.get(wording.params["phase"], gettext_lazy("the job"))
        wording = Wording(wording.template, {**wording.params, "phase": phase})
    return in_page_language(wording)


def _jobs() -> dict:
    """The recent jobs; ``jobs_live`` keeps their list polling while one is unfinished."""
    jobs = [job_view(j) for j in selectors.job_list().select_related("book")[:RECENT_JOBS]]
    return {"jobs": jobs, "jobs_live": any(j["live"] for j in jobs)}


def _list_context(**extra) -> dict:
    return {
        "books": selectors.book_list(),
        **_jobs(),
        "accept": ACCEPT,
        "errors": {},
        "values": {},
        **extra,
    }


@require_GET
@curator_required
def book_list(request):
    return render_page(request, "books/list.html", _list_context())


def _upload(request) -> IngestJob:
    upload = request.FILES.get("file")
    if upload is None:
        raise InvalidInput(
            _(
                "Choose a Markdown, text, reStructuredText, PDF, HTML or EPUB file "
                "or a manual page."
            ),
            field="file",
        )
    limit = settings.KGSITE_MAX_UPLOAD_BYTES  # the upload API's limit too
    if upload.size > limit:
        raise InvalidInput(
            _("The file is larger than %(limit)s bytes.") % {"limit": f"{limit:,}"}, field="file"
        )
    return services.ingest_job_create(
        filename=upload.name or "",
        data=upload.read(),
        title=request.POST.get("title", "").strip(),
        author=request.POST.get("author", "").strip(),
    )


@require_POST
@curator_required
def book_upload(request):
    """Queue the file as the upload API does, then show the job's progress."""
    try:
        job = _upload(request)
    except DomainError as exc:
        # The format is the file's (its extension): the refusal belongs to the file field.
        field = "file" if exc.field in (None, "format") else exc.field
        context = _list_context(
            errors={field: exc.translated},
            values={k: request.POST.get(k, "") for k in ("title", "author")},
        )
        return render_page(request, "books/list.html", context, status=400)
    return redirect("books:job", job_id=job.pk)


@require_GET
@curator_required
def job_detail(request, job_id: int):
    job, can_write = checked_get(request, selectors.job_list().select_related("book"), job_id)
    return render_page(
        request,
        "books/job.html",
        {"j": job_view(job), "can_write": can_write},
        partial="books/_job.html",
    )


@require_POST
@curator_required
def job_retry(request, job_id: int):
    job, _w = checked_get(request, IngestJob, job_id, write=True)
    error = ""
    try:
        job = services.ingest_job_retry(job=job, actor=request.user)
    except DomainError as exc:
        error = "" if _retried_by(job, request.user) else _retry_refusal(exc, job)
    job = selectors.job_list().select_related("book").get(pk=job.pk)
    response = render_page(
        request,
        "books/job.html",
        {"j": job_view(job), "can_write": True, "error": error},
        partial="books/_job.html",
        status=409 if error else 200,
    )
    if not error:
        response["HX-Trigger"] = EVENT  # its failure notice is read: the bell says so now
    return response


def _retry_refusal(exc: DomainError, job: IngestJob) -> str:
    """Why Retry did nothing, in the page's language (the service's is the API's)."""
    if exc.code == "source_missing":
        return _("The file of this job is gone: upload it again.")
    if exc.code == "not_failed":
        status = IngestJob.objects.filter(pk=job.pk).first() or job
        return _("This job is %(status)s: only a failed job can be retried.") % {
            "status": _(status.get_status_display()).lower()
        }
    return exc.message


def _retried_by(job: IngestJob, user) -> bool:
    """Whether the job waits or runs again on ``user``'s retry, the last one it had: a
    Retry clicked twice finds it done, as asked, not refused."""
    live = IngestJob.objects.filter(
        pk=job.pk, status__in=[IngestJob.Status.QUEUED, IngestJob.Status.RUNNING]
    ).exists()
    last = (
        AuditEntry.objects.filter(action="ingest_job.retry", target_id=str(job.pk))
        .filter(target_type=IngestJob._meta.label_lower)
        .order_by("-id")
        .first()
    )
    return live and last is not None and last.actor_id == user.pk


@require_GET
@curator_required
def jobs_panel(request):
    """The dashboard's job list, polled while a job runs."""
    return render_page(request, "books/_jobs.html", _jobs())


def _chapters(book: Book) -> tuple[list[dict], dict[str, list[tuple[int, int]]]]:
    """The book's chapters in reading order, with their chunk counts, and the runs of
    chunk ordinals each holds: its top-level headings, or the level below when one title
    heading holds the whole book. Text above that level (a preface, the title's own
    introduction) is a chapter too, so every chapter listed opens on its chunks."""
    paths = list(selectors.book_chunks(book_id=book.pk).values_list("heading_path", "ordinal"))
    level = 1 if len({tuple(p[:1]) for p, _o in paths if p}) == 1 else 0
    chapters: dict[str, dict] = {}
    runs: dict[str, list[tuple[int, int]]] = {}
    for path, ordinal in paths:
        title = path[level] if len(path) > level else (path[-1] if path else _("(no heading)"))
        chapter = chapters.setdefault(title, {"title": title, "first": ordinal, "chunks": 0})
        chapter["chunks"] += 1
        spans = runs.setdefault(title, [])
        if spans and spans[-1][1] == ordinal - 1:
            spans[-1] = (spans[-1][0], ordinal)
        else:
            spans.append((ordinal, ordinal))
    return list(chapters.values()), runs


@require_GET
@curator_required
def book_detail(request, book_id: int):
    book, can_write = checked_get(request, Book, book_id)
    chapter = request.GET.get("chapter", "")
    chapters, runs = _chapters(book)
    chunks = selectors.book_chunks(book_id=book.pk).prefetch_related("mentions__entity")
    if chapter:
        within = Q(pk__in=[])
        for first, last in runs.get(chapter, []):
            within |= Q(ordinal__range=(first, last))
        chunks = chunks.filter(within)
    # "Where else does X appear?": the entity page links here for every chunk of the book
    # that mentions X (it lists only the first few).
    entity = None
    if request.GET.get("entity"):
        entity, _w = checked_get(request, Entity, request.GET["entity"])
        chunks = chunks.filter(pk__in=Mention.objects.filter(entity=entity).values("chunk_id"))
    page = Paginator(chunks, CHUNK_PAGE_SIZE).get_page(request.GET.get("page"))
    kept = {"chapter": chapter, "entity": entity.pk if entity else ""}
    return render_page(
        request,
        "books/detail.html",
        {
            "book": book,
            "chapters": chapters,
            "chapter": chapter,
            "entity": entity,
            "page": page,
            "query": urlencode({k: v for k, v in kept.items() if v}),
        },
        partial="books/_chunks.html",
    )


@require_GET
@curator_required
def chunk_detail(request, chunk_id: int):
    chunk, _w = checked_get(request, Chunk.objects.select_related("book"), chunk_id)
    mentions = chunk.mentions.select_related("entity").order_by("mention_type", "start")
    return render_page(
        request,
        "books/chunk.html",
        {
            "chunk": chunk,
            "mentions": mentions,
            "related": selectors.chunk_related(chunk=chunk, limit=5),
        },
    )


# --- what books adds to other pages ------------------------------------------------------


def home_panel_context(request: HttpRequest) -> dict:
    return {
        "book_count": selectors.book_list().count(),
        "candidate_count": review.candidate_count(),
        **_jobs(),
    }


HOME_PANEL = Panel(
    name="books", template="books/panel_home.html", context=home_panel_context, order=30
)


AUDIT_LABELS = {
    "book.delete": gettext_lazy("deleted the book"),
    "ingest_job.retry": gettext_lazy("retried the ingestion of"),
}


def describe_books(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    found = Book.objects.in_bulk(audit_target_ids(entries))
    out = {}
    for entry in entries:
        book = found.get(parse_id(entry.target_id))
        if book is not None:
            out[entry.pk] = (book.title, reverse("books:detail", args=[book.pk]))
        else:
            out[entry.pk] = (str(entry.payload.get("title", "")), "")
    return out


def describe_jobs(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    found = IngestJob.objects.in_bulk(audit_target_ids(entries))
    out = {}
    for entry in entries:
        job = found.get(parse_id(entry.target_id))
        if job is not None:
            out[entry.pk] = (job.title or job.source_name, reverse("books:job", args=[job.pk]))
    return out


def job_page(notification: Notification) -> str:
    """Where the bell sends a curator for a failed job."""
    return reverse("books:job", args=[int(notification.payload["job_id"])])


def job_failed_title(notification: Notification) -> str:
    """A failed job's notice in the page's language (it is stored in English)."""
    job = IngestJob.objects.filter(pk=int(notification.payload["job_id"])).first()
    if job is None:
        return ""
    return _("Ingesting “%(title)s” failed") % {"title": job.title or job.source_name}


# --- the review queue of extraction's candidates -----------------------------------------

CANDIDATE_PAGE_SIZE = 20
CANDIDATE_ACTIONS = ("accept", "retype", "merge", "reject")


def _candidate_filters(request) -> tuple[int | None, str]:
    raw = request.GET.get("book") or request.POST.get("book") or ""
    book_id = parse_id(raw)
    # Types are stored as case-free tags: "?type=Person" is the "person" of the menu.
    return book_id, type_tag(request.GET.get("type") or request.POST.get("type_filter") or "")


def _candidates_context(request, **extra) -> dict:
    book_id, entity_type = _candidate_filters(request)
    page = Paginator(
        review.candidates_pending(book_id=book_id, type=entity_type), CANDIDATE_PAGE_SIZE
    ).get_page(request.GET.get("page"))
    evidence = review.candidates_evidence([e.pk for e in page.object_list])
    filters = {
        key: value for key, value in (("book", book_id or ""), ("type", entity_type)) if value
    }
    query = urlencode(filters)
    # A decision (or its undo) answers the page it was taken on, not the first one.
    here = urlencode({**filters, "page": page.number}) if page.number > 1 else query
    return {
        "page": page,
        "rows": [{"e": e, "mentions": evidence.get(e.pk, [])} for e in page.object_list],
        "books": _with_chosen_book(review.candidate_books(), book_id),
        "types": _with_chosen(review.candidate_types(), entity_type),
        "all_types": sorted(settings.KGSITE_ENTITY_TYPES),
        "book_id": book_id,
        "type": entity_type,
        "query": query,
        "here": here,
        "can_write": is_curator(request.user),
        **extra,
    }


def _with_chosen_book(books: list[Book], book_id: int | None) -> list[Book]:
    """The filter's books, with the chosen one even when none of its candidates waits
    any more: the menu said "all books" over its empty list, as if none waited anywhere."""
    if book_id is None or any(b.pk == book_id for b in books):
        return books
    chosen = Book.objects.filter(pk=book_id).first()
    return sorted([*books, chosen], key=lambda b: b.title_norm) if chosen else books


def _with_chosen(types: list[str], chosen: str) -> list[str]:
    return sorted({*types, chosen}) if chosen else types


@require_GET
@curator_required
def candidates(request):
    """What extraction proposed and no curator confirmed: filter by book and type, then
    accept, retype, merge or reject in bulk."""
    return render_page(
        request,
        "books/candidates.html",
        _candidates_context(request),
        partial="books/_candidates.html",
    )


def _candidates_decide(request, action: str, ids: list[str]) -> tuple[str, AuditEntry | None]:
    """Run the chosen decision; returns what to tell the curator, and the rejection this
    request wrote (its undo: not the latest one, which may be another curator's)."""
    user = request.user
    if action == "accept":
        n = review.candidates_accept(entity_ids=ids, actor=user)
        msg = ngettext("Accepted %(n)d candidate.", "Accepted %(n)d candidates.", n)
        return msg % {"n": n}, None
    if action == "retype":
        new_type = request.POST.get("new_type", "")
        n = review.candidates_retype(entity_ids=ids, type=new_type, actor=user)
        return ngettext(
            "Gave %(n)d candidate the type %(type)s.", "Gave %(n)d candidates the type %(type)s.", n
        ) % {"n": n, "type": new_type}, None
    if action == "merge":
        outcome = review.candidates_merge(
            entity_ids=ids, target=request.POST.get("target", ""), actor=user
        )
        return _("Merged into “%(name)s”.") % {"name": outcome.plan.survivor.canonical_name}, None
    if action == "reject":
        entry = review.candidates_reject(entity_ids=ids, actor=user)
        n = len(entry.payload["entities"])
        msg = ngettext("Rejected %(n)d candidate.", "Rejected %(n)d candidates.", n)
        return msg % {"n": n}, entry
    raise InvalidInput(_("Choose what to do with the chosen candidates."), field="action")


@require_POST
@curator_required
def candidates_decide(request):
    """One decision over the checked candidates; the list comes back in place, with the
    undo of a rejection."""
    action = request.POST.get("action", "")
    ids = request.POST.getlist("ids")
    error = notice = ""
    undo = None
    try:
        notice, undo = _candidates_decide(request, action, ids)
    except DomainError as exc:
        error = exc.translated
    context = _candidates_context(request, error=error, notice=notice, undo=undo)
    return render_page(
        request,
        "books/candidates.html",
        context,
        partial="books/_candidates.html",
        status=400 if error else 200,
    )


@require_POST
@curator_required
def candidates_reject_undo(request, entry_id: int):
    entry, _w = checked_get(
        request, AuditEntry.objects.filter(action="entity.reject"), entry_id, write=True
    )
    error = notice = ""
    try:
        ids = review.candidates_reject_undo(entry=entry, actor=request.user)
    except DomainError as exc:
        ids = [row["id"] for row in entry.payload.get("entities", [])]
        # Undo clicked twice: this curator's first click brought them back, as asked.
        mine = AuditEntry.objects.filter(action="entity.reject_undo", actor=request.user)
        error = "" if mine.filter(payload__entry=entry.pk).exists() else exc.translated
    if not error:
        notice = ngettext(
            "Brought back %(n)d candidate.", "Brought back %(n)d candidates.", len(ids)
        ) % {"n": len(ids)}
    return render_page(
        request,
        "books/candidates.html",
        _candidates_context(request, error=error, notice=notice),
        partial="books/_candidates.html",
        status=409 if error else 200,
    )


def _reject_audit_undo(entry: AuditEntry, actor) -> None:
    review.candidates_reject_undo(entry=entry, actor=actor)


REJECT_UNDO = UndoAction(
    action="entity.reject", undo=_reject_audit_undo, available=review.candidates_reject_undoable
)
