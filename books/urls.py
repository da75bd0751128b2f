from __future__ import annotations

from django.urls import path

from . import views

app_name = "books"

urlpatterns = [
    path("", views.book_list, name="list"),
    path("upload", views.book_upload, name="upload"),
    path("jobs/", views.jobs_panel, name="jobs"),
    path("jobs/<int:job_id>/", views.job_detail, name="job"),
    path("jobs/<int:job_id>/retry", views.job_retry, name="job-retry"),
    path("<int:book_id>/", views.book_detail, name="detail"),
    path("chunks/<int:chunk_id>/", views.chunk_detail, name="chunk"),
]
