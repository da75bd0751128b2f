"""Password guessing and token guessing, both throttled (issue 27 item 4).

Logins go through django-axes (settings: ``AXES_*``, ``KGSITE_LOGIN_*``): this module
gives it the client's address and the lockout page. API tokens are not passwords and
axes does not see them, so ``ThrottledTokenAuthentication`` counts bad tokens per
address in the cache and answers 429 with ``Retry-After`` once there were too many.
"""

from __future__ import annotations

import ipaddress
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header

LOCKOUT_TEMPLATE = "registration/lockout.html"


def _address(text: str) -> str | None:
    """``text`` as an IP address, or None: the address is stored in an address column
    (PostgreSQL's inet), and a header may carry anything."""
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return None


def client_ip(request: HttpRequest) -> str | None:
    """The client's address: ``REMOTE_ADDR``, or with ``KGSITE_PROXY_COUNT`` proxies in
    front, the address the outermost trusted proxy saw (``X-Forwarded-For`` from the
    right, so a client cannot pick its own by sending the header). None when unknown
    (a request made in code, a unix socket)."""
    request = getattr(request, "_request", request)  # a DRF Request wraps Django's
    remote = _address(request.META.get("REMOTE_ADDR", "") or "")
    proxies = settings.KGSITE_PROXY_COUNT
    if proxies <= 0:
        return remote
    forwarded = [a for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
    if len(forwarded) < proxies:
        return remote
    return _address(forwarded[-proxies]) or remote


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    """django-axes' answer to a locked-out login: the site's page, 429, ``Retry-After``."""
    minutes = settings.AXES_COOLOFF_TIME.total_seconds() / 60
    response = render(
        request,
        LOCKOUT_TEMPLATE,
        {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": math.ceil(minutes)},
        status=429,
    )
    response["Retry-After"] = str(math.ceil(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response


# --- API tokens ------------------------------------------------------------------------


def _failures_key(address: str) -> str:
    return f"kgsite:token-failures:{address}"


def _lock_key(address: str) -> str:
    return f"kgsite:token-lock:{address}"


def token_lock_remaining(address: str) -> int:
    """Seconds this address stays locked out of token authentication (0: not locked)."""
    until = cache.get(_lock_key(address))
    return max(0, math.ceil(until - time.time())) if until else 0


def token_failure_record(address: str) -> None:
    """Count one bad token from ``address``; at the limit, lock it out."""
    key = _failures_key(address)
    cache.add(key, 0, timeout=settings.KGSITE_TOKEN_FAILURE_WINDOW_SECONDS)
    try:
        failures = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=settings.KGSITE_TOKEN_FAILURE_WINDOW_SECONDS)
        failures = 1
    if failures >= settings.KGSITE_TOKEN_FAILURE_LIMIT:
        lockout = settings.KGSITE_TOKEN_LOCKOUT_SECONDS
        cache.set(_lock_key(address), time.time() + lockout, timeout=lockout)
        cache.delete(key)


def token_failures_reset(address: str) -> None:
    """Unlock ``address`` for token authentication and forget its failures."""
    cache.delete_many([_failures_key(address), _lock_key(address)])


class ThrottledTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refused with 429 for an address that sent
    ``KGSITE_TOKEN_FAILURE_LIMIT`` bad tokens: the lock is checked before the token, so
    a locked-out guesser learns nothing more, whatever token it tries."""

    def authenticate(self, request):
        auth = get_authorization_header(request).split()
        if not auth or auth[0].lower() != self.keyword.lower().encode():
            return None  # no token offered: another authentication may apply
        address = client_ip(request) or "unknown"
        remaining = token_lock_remaining(address)
        if remaining:
            raise exceptions.Throttled(
                wait=remaining, detail="too many bad tokens from this address; try later"
            )
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            token_failure_record(address)
            raise
