"""Who may see and do what on the curator pages: anonymous visitors go to the login
page, readers see but cannot change, and every HTMX post needs the CSRF token the page
puts in ``hx-headers``."""

from __future__ import annotations

import pytest
from django.urls import reverse

from .conftest import HTMX, csrf_token

pytestmark = pytest.mark.django_db

PAGES = ["/", "/entities/", "/integrity/", "/books/", "/audit/", "/notifications/panel"]


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_visitors_are_sent_to_the_login_page(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(f"{reverse('login')}?next=")


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/notifications/badge"),
        ("get", "/dashboard/counts"),
        ("post", "/notifications/read"),
    ],
)
def test_a_swap_after_the_session_ended_sends_the_whole_page_to_log_in(client, method, url):
    """The bell polls every 10 s: once the session had ended (logged out in another tab,
    expired) each poll followed the redirect and swapped the login page into the bell
    badge, and logging in from it landed on the bare badge. Now the page itself goes to
    the login, and back to that page after it."""
    response = getattr(client, method)(
        url, HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL="http://testserver/integrity/?page=2"
    )
    assert response.status_code == 204 and not response.content
    assert response["HX-Redirect"] == f"{reverse('login')}?next=/integrity/%3Fpage%3D2"
    # a current page on another site is not where the login sends anyone back to
    other = getattr(client, method)(
        url, HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL="https://elsewhere.example/"
    )
    assert other["HX-Redirect"] == f"{reverse('login')}?next=/"


def test_the_login_page_logs_a_curator_in_and_back_to_where_they_were(client, curator):
    page = client.get(reverse("login"))
    assert b'name="username"' in page.content
    response = client.post(
        reverse("login"),
        {"username": "curator", "password": "curator-pass", "next": "/books/"},
    )
    assert response.status_code == 302 and response["Location"] == "/books/"
    assert client.get("/books/").status_code == 200


def test_a_wrong_password_is_shown_on_the_login_page(client, curator):
    response = client.post(reverse("login"), {"username": "curator", "password": "nope"})
    assert response.status_code == 200
    assert b'role="alert"' in response.content


def test_logging_out_is_a_post(curator_client):
    response = curator_client.post(reverse("logout"))
    assert response.status_code == 302
    assert curator_client.get("/").status_code == 302


@pytest.mark.parametrize("url", PAGES)
def test_readers_see_every_page(reader_client, url):
    assert reader_client.get(url).status_code == 200


def test_every_page_has_the_bell_and_the_csrf_header(curator_client, holmes):
    for url in ["/", "/entities/", f"/entities/{holmes.pk}/", "/integrity/", "/books/"]:
        html = curator_client.get(url).content.decode()
        assert 'id="bell-badge"' in html and 'hx-trigger="load, every 10s' in html
        assert 'hx-headers=\'{"X-CSRFToken": "' in html
        assert "django_htmx/htmx-2.min.js" in html  # served from our static files


def test_a_page_drawn_before_logging_in_again_says_to_reload(csrf_client, holmes):
    """Logging in again (in another tab) changes the CSRF token: the old tab's buttons
    were answered by Django's bare "CSRF verification failed" page, swapped into the
    card unstyled. Now the card says to reload; a plain form gets our styled page."""
    stale = csrf_token(csrf_client, f"/entities/{holmes.pk}/")
    csrf_client.cookies["csrftoken"] = "A" * 32  # the other tab's login rotated it
    url = reverse("entities:alias-add", args=[holmes.pk])
    swap = csrf_client.post(
        url, {"alias": "The Detective"}, HTTP_X_CSRFTOKEN=stale, HTTP_HX_TARGET="aliases", **HTMX
    )
    assert swap.status_code == 403
    html = swap.content.decode()
    assert html.startswith('<div id="aliases"') and "<html" not in html
    assert 'role="alert"' in html and "Reload the page" in html
    page = csrf_client.post(url, {"alias": "The Detective", "csrfmiddlewaretoken": stale})
    assert page.status_code == 403
    assert b"reload the page" in page.content and b"kgsite.css" in page.content
    assert not holmes.aliases.filter(alias="The Detective").exists()


def test_a_button_after_losing_the_curator_permission_says_so_in_its_card(
    curator_client, curator, holmes
):
    """A curator taken out of the curators' group while their page was open: each button
    swapped the whole 403 page, header and all, into its card."""
    curator.groups.clear()
    response = curator_client.post(
        reverse("entities:alias-add", args=[holmes.pk]),
        {"alias": "The Detective"},
        HTTP_HX_TARGET="aliases",
        **HTMX,
    )
    assert response.status_code == 403
    html = response.content.decode()
    assert html.startswith('<div id="aliases"') and "<html" not in html
    assert 'role="alert"' in html and "curator permission" in html
    assert not holmes.aliases.filter(alias="The Detective").exists()


def test_adding_an_alias_the_entity_has_says_so(curator_client, holmes):
    """Answered with the card unchanged, the click looked as if it had not been taken."""
    url = reverse("entities:alias-add", args=[holmes.pk])
    html = curator_client.post(url, {"alias": "MR. HOLMES"}, **HTMX).content.decode()
    assert "“Mr. Holmes” is already an alias of this entity." in html
    assert holmes.aliases.count() == 1
    fresh = curator_client.post(url, {"alias": "The Detective"}, **HTMX).content.decode()
    assert "already an alias" not in fresh and holmes.aliases.count() == 2


def test_readers_cannot_write(reader_client, holmes):
    posts = [
        reverse("entities:alias-add", args=[holmes.pk]),
        reverse("entities:alias-remove", args=[holmes.pk]),
        reverse("entities:merge-preview", args=[holmes.pk]),
        reverse("entities:merge", args=[holmes.pk]),
        reverse("books:upload"),
        reverse("notifications:read"),
    ]
    for url in posts:
        assert reader_client.post(url, {"alias": "Holmes"}, **HTMX).status_code == 403, url
    assert holmes.aliases.count() == 1


def test_an_htmx_post_without_the_csrf_token_is_refused(csrf_client, holmes):
    url = reverse("entities:alias-add", args=[holmes.pk])
    assert csrf_client.post(url, {"alias": "S. Holmes"}, **HTMX).status_code == 403
    token = csrf_token(csrf_client, f"/entities/{holmes.pk}/")
    response = csrf_client.post(url, {"alias": "S. Holmes"}, HTTP_X_CSRFTOKEN=token, **HTMX)
    assert response.status_code == 200
    assert holmes.aliases.filter(alias="S. Holmes").exists()


def test_an_unknown_entity_is_a_404_page(curator_client):
    assert curator_client.get("/entities/nope/").status_code == 404
