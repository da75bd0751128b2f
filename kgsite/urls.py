from __future__ import annotations

from csp.decorators import csp_replace
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from kgsite import api, views


def _docs_page(view_class):
    """The view with inline styles allowed (a nonce or hash in style-src would make
    browsers ignore 'unsafe-inline', so the directive is replaced, not extended), and
    ReDoc's search worker, which it starts from a blob: URL."""
    view = view_class.as_view(url_name="schema")
    policy = {"style-src": ["'self'", "'unsafe-inline'"], "worker-src": ["'self'", "blob:"]}
    return csp_replace(policy)(view)


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
    # The API documentation: Swagger UI's set-up script served as a file (no inline
    # script); both libraries write inline styles, allowed on these two pages only.
    path("api/docs/", _docs_page(SpectacularSwaggerSplitView), name="api-docs"),
    path("api/redoc/", _docs_page(SpectacularRedocView), name="api-redoc"),
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
