"""Books and ingest jobs: upload a book (the upload API's path), watch its job's
progress to done (HTMX polling), retry a failed job, and browse a book's chapters,
chunks and mentions."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from kgsite.errors import DomainError, InvalidInput
from kgsite.pages import Panel, checked_get, curator_required, render_page
from notifications.models import Notification

from . import selectors, services
from .models import Book, Chunk, IngestJob

MAX_UPLOAD_BYTES = 50 * 1024 * 1024
RECENT_JOBS = 10
CHUNK_PAGE_SIZE = 25
ACCEPT = ".md,.markdown,.txt,.text,.pdf"
FINISHED = {IngestJob.Status.DONE, IngestJob.Status.FAILED}


def _percent(job: IngestJob) -> int:
    if job.status == IngestJob.Status.DONE:
        return 100
    return int(100 * job.done / job.total) if job.total else 0


def job_view(job: IngestJob) -> dict:
    """What a job's progress partial shows; ``live`` keeps it polling."""
    return {"job": job, "percent": _percent(job), "live": job.status not in FINISHED}


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
        raise InvalidInput("choose a Markdown, text or PDF file", field="file")
    if upload.size > MAX_UPLOAD_BYTES:
        raise InvalidInput("the file is larger than 50 MB", field="file")
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
        context = _list_context(
            errors={exc.field or "file": exc.message},
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
    job, _ = checked_get(request, IngestJob, job_id, write=True)
    error = ""
    try:
        job = services.ingest_job_retry(job=job, actor=request.user)
    except DomainError as exc:
        error = exc.message
    job = selectors.job_list().select_related("book").get(pk=job.pk)
    return render_page(
        request,
        "books/job.html",
        {"j": job_view(job), "can_write": True, "error": error},
        partial="books/_job.html",
        status=409 if error else 200,
    )


@require_GET
@curator_required
def jobs_panel(request):
    """The dashboard's job list, polled while a job runs."""
    return render_page(request, "books/_jobs.html", _jobs())


def _chapters(book: Book) -> tuple[int, list[dict]]:
    """The book's chapters in reading order, with their chunk counts: its top-level
    headings, or the level below when one title heading holds the whole book."""
    paths = list(selectors.book_chunks(book_id=book.pk).values_list("heading_path", "ordinal"))
    level = 1 if len({tuple(p[:1]) for p, _o in paths if p}) == 1 else 0
    chapters: dict[str, dict] = {}
    for path, ordinal in paths:
        title = path[level] if len(path) > level else "(no heading)"
        chapter = chapters.setdefault(title, {"title": title, "first": ordinal, "chunks": 0})
        chapter["chunks"] += 1
    return level, list(chapters.values())


@require_GET
@curator_required
def book_detail(request, book_id: int):
    book, can_write = checked_get(request, Book, book_id)
    chapter = request.GET.get("chapter", "")
    level, chapters = _chapters(book)
    chunks = selectors.book_chunks(book_id=book.pk).prefetch_related("mentions__entity")
    if chapter:
        chunks = chunks.filter(**{f"heading_path__{level}": chapter})
    page = Paginator(chunks, CHUNK_PAGE_SIZE).get_page(request.GET.get("page"))
    return render_page(
        request,
        "books/detail.html",
        {
            "book": book,
            "chapters": chapters,
            "chapter": chapter,
            "page": page,
            "query": f"chapter={chapter}" if chapter else "",
        },
        partial="books/_chunks.html",
    )


@require_GET
@curator_required
def chunk_detail(request, chunk_id: int):
    chunk, _ = checked_get(request, Chunk.objects.select_related("book"), chunk_id)
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
    return {"book_count": selectors.book_list().count(), **_jobs()}


HOME_PANEL = Panel(
    name="books", template="books/panel_home.html", context=home_panel_context, order=30
)


def job_page(notification: Notification) -> str:
    """Where the bell sends a curator for a failed job."""
    return reverse("books:job", args=[int(notification.payload["job_id"])])
