import pytest

pytestmark = pytest.mark.django_db


def test_pages_render(curator_client, holmes):
    for url in ["/", "/entities/", f"/entities/{holmes.pk}/", "/integrity/", "/books/", "/audit/",
                "/notifications/badge", "/notifications/panel", "/entities/?q=holm"]:
        r = curator_client.get(url)
        assert r.status_code == 200, (url, r.content[:3000])
