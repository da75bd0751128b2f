from __future__ import annotations

from django.urls import path

from . import views

app_name = "books"

urlpatterns = [
    path("", views.book_list, name="list"),
    path("upload", views.book_upload, name="upload"),
    path("candidates/", views.candidates, name="candidates"),
    path("candidates/decide", views.candidates_decide, name="candidates-decide"),
    path(
        "candidates/rejected/<int:entry_id>/undo",
        views.candidates_reject_undo,
        name="candidates-undo",
    ),
    path("jobs/", views.jobs_panel, name="jobs"),
    path("jobs/<int:job_id>/", views.job_detail, name="job"),
    path("jobs/<int:job_id>/retry", views.job_retry, name="job-retry"),
    path("<int:book_id>/", views.book_detail, name="detail"),
    path("chunks/<int:chunk_id>/", views.chunk_detail, name="chunk"),
]
