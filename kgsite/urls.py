from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from kgsite import api, views

urlpatterns = [
    path("", views.home, name="home"),
    path("dashboard/counts", views.dashboard_counts, name="dashboard-counts"),
    path("audit/", views.audit_log, name="audit"),
    path("audit/<int:entry_id>/undo", views.audit_undo, name="audit-undo"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("favicon.ico", views.favicon, name="favicon"),
    path("api/redoc/redoc.standalone.js", views.redoc_script, name="redoc-script"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Each app's curator pages (``<app>/urls.py``).
    path("entities/", include("entities.urls")),
    path("integrity/", include("integrity.urls")),
    path("books/", include("books.urls")),
    path("notifications/", include("notifications.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("api/v1/", include("kgsite.api_urls")),
    path("", include("entities.graph.urls")),
    # Last: any other /api/ URL answers the JSON error shape, with DEBUG on too.
    re_path(r"^api/", api.api_not_found, name=api.API_NOT_FOUND),
]

# Unmatched URLs and unhandled errors under /api/ answer the API's JSON error shape.
handler404 = "kgsite.api.not_found"
handler500 = "kgsite.api.server_error"
# Styled pages for the curator (templates/403.html); the API keeps its JSON shape.
handler403 = "kgsite.views.permission_denied"
