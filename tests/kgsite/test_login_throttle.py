"""Password and token guessing are throttled (issue 27 item 4)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token

from kgsite import auth

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def login(username: str, password: str, address: str = "198.51.100.7"):
    return Client(REMOTE_ADDR=address).post(LOGIN, {"username": username, "password": password})


def logged_in(response) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.client.session


def test_the_right_password_after_too_many_wrong_ones_is_refused(curator, settings):
    codes = [login("curator", "wrong").status_code for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert codes == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]  # the last one locks
    response = login("curator", "curator-pass")
    assert response.status_code == 429 and not logged_in(response)
    assert int(response["Retry-After"]) == 15 * 60
    page = response.content.decode()
    assert "Too many failed logins" in page and "15 minutes" in page
    assert "kgsite.css" in page  # the site's page, not a bare message


def test_fewer_failures_than_the_limit_still_log_in(curator, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login("curator", "wrong")
    assert logged_in(login("curator", "curator-pass"))


def test_a_user_is_locked_whatever_address_the_guesses_come_from(curator, settings):
    for index in range(settings.AXES_FAILURE_LIMIT):
        login("curator", "wrong", address=f"203.0.113.{index + 1}")
    assert login("curator", "curator-pass", address="192.0.2.99").status_code == 429


def test_an_address_is_locked_whatever_names_it_tries(curator, reader, settings):
    for index in range(settings.AXES_FAILURE_LIMIT):
        login(f"someone{index}", "wrong", address="203.0.113.50")
    assert login("reader", "reader-pass", address="203.0.113.50").status_code == 429
    # Another address is not locked out, and neither is the reader elsewhere.
    assert logged_in(login("reader", "reader-pass", address="203.0.113.51"))


def test_the_admin_login_is_throttled_too(curator, settings):
    User.objects.create_superuser("boss", password="boss-pass")
    client = Client(REMOTE_ADDR="198.51.100.8")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/admin/login/", {"username": "boss", "password": "nope"})
    response = client.post("/admin/login/", {"username": "boss", "password": "boss-pass"})
    assert response.status_code == 429


def test_the_lockout_ends_after_the_cooloff(curator, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login("curator", "wrong")
    assert login("curator", "curator-pass").status_code == 429
    earlier = AccessAttempt.objects.get().attempt_time - timedelta(minutes=16)
    AccessAttempt.objects.update(attempt_time=earlier)
    assert logged_in(login("curator", "curator-pass"))


def test_an_admin_unlocks_a_user_at_once(curator, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login("curator", "wrong", address="198.51.100.9")
    assert login("curator", "curator-pass").status_code == 429
    boss = User.objects.create_superuser("boss", password="boss-pass")
    admin = Client()
    admin.force_login(boss)
    listing = admin.get("/admin/axes/accessattempt/?locked_out=yes")
    assert listing.status_code == 200 and "curator" in listing.content.decode()
    response = admin.post(
        "/admin/axes/accessattempt/",
        {
            "action": "unlock",
            "_selected_action": list(AccessAttempt.objects.values_list("pk", flat=True)),
        },
        follow=True,
    )
    assert "Unlocked" in response.content.decode()
    assert logged_in(login("curator", "curator-pass"))


# --- API tokens ------------------------------------------------------------------------


def api_get(token: str, address: str = "198.51.100.20"):
    client = Client(REMOTE_ADDR=address, HTTP_AUTHORIZATION=f"Token {token}")
    return client.get("/api/v1/entities/")


def test_bad_tokens_from_an_address_end_in_429_with_retry_after(reader, settings):
    settings.KGSITE_TOKEN_FAILURE_LIMIT = 5
    good = Token.objects.create(user=reader).key
    codes = [api_get(f"bad{index:037d}").status_code for index in range(7)]
    assert codes == [401] * 5 + [429] * 2
    response = api_get(good)  # a right token from the locked address: refused as well
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= settings.KGSITE_TOKEN_LOCKOUT_SECONDS
    error = response.json()["error"]
    assert error["code"] == "throttled" and "too many bad tokens" in error["message"]
    assert api_get(good, address="198.51.100.21").status_code == 200  # another address


def test_the_token_lockout_ends_and_can_be_lifted(reader, settings, monkeypatch):
    settings.KGSITE_TOKEN_FAILURE_LIMIT = 3
    good = Token.objects.create(user=reader).key
    for _ in range(3):
        api_get("f" * 40)
    assert api_get(good).status_code == 429
    auth.token_failures_reset("198.51.100.20")
    assert api_get(good).status_code == 200
    for _ in range(3):
        api_get("f" * 40)
    now = auth.time.time()
    monkeypatch.setattr(auth.time, "time", lambda: now + settings.KGSITE_TOKEN_LOCKOUT_SECONDS)
    assert api_get(good).status_code == 200


def test_good_tokens_and_sessions_are_never_counted(reader, settings):
    settings.KGSITE_TOKEN_FAILURE_LIMIT = 2
    good = Token.objects.create(user=reader).key
    for _ in range(10):
        assert api_get(good).status_code == 200
    client = Client(REMOTE_ADDR="198.51.100.20")
    client.force_login(reader)
    for _ in range(3):
        assert client.get("/api/v1/entities/").status_code == 200


def test_behind_a_proxy_the_forwarded_address_counts(settings):
    from django.test import RequestFactory

    settings.KGSITE_PROXY_COUNT = 1
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.30"
    )
    assert auth.client_ip(request) == "198.51.100.30"  # what the proxy saw, not spoofable
    settings.KGSITE_PROXY_COUNT = 0
    assert auth.client_ip(request) == "10.0.0.1"


def test_a_forged_or_missing_address_never_breaks_a_login(curator, settings):
    """The address goes into an address column (inet on PostgreSQL): garbage in the
    forwarded header falls back to the connection's address, and none at all is None."""
    from django.test import RequestFactory

    settings.KGSITE_PROXY_COUNT = 1
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="x'; --")
    assert auth.client_ip(request) == "10.0.0.1"
    request.META.pop("REMOTE_ADDR")
    assert auth.client_ip(request) is None
    client = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="not an address")
    response = client.post(LOGIN, {"username": "curator", "password": "wrong"})
    assert response.status_code == 200
    assert AccessAttempt.objects.get().ip_address == "10.0.0.2"


def test_the_lockout_page_reads_in_the_browsers_language(curator, settings):
    """The login page is Italian for an Italian browser; the lockout page after it was
    English only."""
    client = Client(REMOTE_ADDR="198.51.100.9", HTTP_ACCEPT_LANGUAGE="it")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = client.post(LOGIN, {"username": "curator", "password": "wrong"})
    assert response.status_code == 429
    html = response.content.decode()
    assert '<html lang="it">' in html and "Troppi accessi non riusciti" in html
    assert "Too many" not in html and "Try again" not in html
