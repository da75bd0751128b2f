import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kgsite.settings.dev")
application = get_wsgi_application()

from django.conf import settings  # noqa: E402 - configured by the line above

if settings.KGSITE_WARM_START:
    from kgsite.warmup import warm_up

    warm_up()
