from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("recall", api.QueryView.as_view(), name="recall-query"),
    path("recall/session-start", api.SessionStartView.as_view(), name="recall-session-start"),
    path("recall/pre-check", api.PreCheckView.as_view(), name="recall-pre-check"),
    path("recall/unknown", api.UnknownView.as_view(), name="recall-unknown"),
    path("recall/finding", api.FindingView.as_view(), name="recall-finding"),
    path("recall/domain", api.DomainView.as_view(), name="recall-domain"),
    path("recall/episodes", api.EpisodeCreateView.as_view(), name="recall-episodes"),
]
